"""Oracle for the sql-r1 preset: SQL-R1's own reward on real completions.

Runs compute_score of IDEA-FinAI/SQL-R1 verl/utils/reward_score/synsql.py
(with its exec_eval.py and parse.py), unmodified and imported from outside
this repository, on completions built from Spider dev items (gold from
dev_gold.sql, SQL from the DIN-SQL and C3 prediction files) in well-formed
and malformed <think>/<answer> layouts, and writes one JSON line per case:
{"db_id", "gold", "completion", "reward"}.

Two things differ from a training run and change no reward here: the
func_timeout package (not installed) is replaced by a module that calls
the function directly (no query here runs long), and the script's
hard-coded database folder data/NL2SQL/SynSQL-2.5M/databases is a link
to Spider's database/ in a temporary directory.

Re-run (Debian python with sqlparse, from the repository root, ../shared
beside it), with SQL-R1's three files in DIR/sqlr1_reward/:

    mkdir -p /tmp/sqlr1/sqlr1_reward && touch /tmp/sqlr1/sqlr1_reward/__init__.py
    for f in synsql exec_eval parse; do
      git --git-dir=/work/.mirror/IDEA-FinAI+SQL-R1/repo show \
          HEAD:verl/utils/reward_score/$f.py > /tmp/sqlr1/sqlr1_reward/$f.py
    done
    /usr/bin/python3 internal/serve/testdata/oracle_sqlr1.py /tmp/sqlr1 \
        > internal/serve/testdata/sqlr1_oracle.jsonl
"""

import contextlib
import io
import json
import os
import random
import sys
import tempfile
import types

shim = types.ModuleType("func_timeout")


class FunctionTimedOut(Exception):
    pass


def func_timeout(timeout, func, args=(), kwargs=None):
    return func(*args, **(kwargs or {}))


shim.FunctionTimedOut, shim.func_timeout = FunctionTimedOut, func_timeout
sys.modules["func_timeout"] = shim
sys.path.insert(0, sys.argv[1])
from sqlr1_reward import synsql  # noqa: E402
import spider_inputs  # noqa: E402

SPIDER = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "data", "spider"))

LAYOUTS = [
    "<think>{think}</think>\n<answer>```sql\n{sql}\n```</answer>",
    "<think>{think}</think>\n<answer>The query is:\n```sql\n{sql}\n```\nIt lists what was asked.</answer>",
    "<think>{think}</think><answer>```sql\n{sql}```</answer>",
    "<answer>```sql\n{sql}\n```</answer><think>{think}</think>",
    "<think>{think}</think>\n<answer>{sql}</answer>",
    "<think>{think}</think><think>again</think>\n<answer>```sql\n{sql}\n```</answer>",
    "{think}\n```sql\n{sql}\n```",
]
HEADERS = ["<|im_start|>system\nYou write SQL.<|im_end|>\n<|im_start|>user\nQuestion<|im_end|>\n<|im_start|>assistant\n", "User: Question\nAssistant: "]


def main():
    gold, preds = spider_inputs.read(SPIDER)
    rng = random.Random(1)
    tmp = tempfile.mkdtemp()
    os.makedirs(os.path.join(tmp, "data", "NL2SQL", "SynSQL-2.5M"))
    os.symlink(os.path.join(SPIDER, "database"), os.path.join(tmp, "data", "NL2SQL", "SynSQL-2.5M", "databases"))
    os.chdir(tmp)
    for i in range(0, len(gold), 6):
        g, db = gold[i]
        for system in spider_inputs.SYSTEMS:
            think = "Reasoning about the tables. " * rng.choice([1, 5, 30, 80])
            completion = rng.choice(HEADERS) + rng.choice(LAYOUTS).format(sql=preds[system][i], think=think)
            with contextlib.redirect_stdout(io.StringIO()):
                reward = synsql.compute_score(completion, {"db_id": db, "sql": g})
            print(json.dumps({"db_id": db, "gold": g, "completion": completion, "reward": reward}))


main()
