"""Oracle for the skyrl-sql preset: SkyRL's own reward on real completions.

Runs calculate_reward_single of NovaSky-AI/SkyRL
skyrl-gym/skyrl_gym/envs/sql/utils.py, unmodified and imported from outside
this repository, on completions built from Spider dev items (gold from
dev_gold.sql, SQL from the DIN-SQL and C3 prediction files) wrapped in
well-formed and malformed <think>/<solution>/<observation> layouts, and
writes one JSON line per case: {"db_id", "gold", "completion", "reward"}.

Re-run (Debian python, from the repository root, ../shared beside it):

    git --git-dir=/work/.mirror/NovaSky-AI+SkyRL/repo show \
        HEAD:skyrl-gym/skyrl_gym/envs/sql/utils.py > /tmp/skyrl_sql_utils.py
    /usr/bin/python3 internal/serve/testdata/oracle_skyrl.py /tmp \
        > internal/serve/testdata/skyrl_oracle.jsonl
"""

import json
import os
import random
import sys

sys.path.insert(0, sys.argv[1])
import skyrl_sql_utils as skyrl  # noqa: E402
import spider_inputs  # noqa: E402

SPIDER = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared", "data", "spider")

LAYOUTS = [
    "<think>Let me look at the schema.</think>\n<solution>{sql}</solution>",
    "<think>a</think><sql>{sql}</sql><observation>rows</observation>\n  <think>b</think><solution>\n{sql}\n</solution>",
    "<solution>{sql}</solution>",
    "<think>a</think><observation>x</observation> oops <think>b</think><solution>{sql}</solution>",
    "<think>a</think><solution>{sql}</solution><solution>{sql}</solution>",
    "<think>a</think><solution>{sql} <SQL></solution>",
    "<think>a</think><solution>{sql}",
    "<think>x</think>\n<solution>{sql}</solution>\ntrailing text",
]


def main():
    gold, preds = spider_inputs.read(SPIDER)
    rng = random.Random(1)
    for i in range(0, len(gold), 4):
        g, db = gold[i]
        for system in spider_inputs.SYSTEMS:
            layout = rng.choice(LAYOUTS)
            completion = layout.format(sql=preds[system][i])
            db_file = os.path.join(SPIDER, "database", db, db + ".sqlite")
            reward = skyrl.calculate_reward_single(completion, g, db_file, timeout=30)
            print(json.dumps({"db_id": db, "gold": g, "completion": completion, "reward": reward}))


main()
