"""sqljudge as verl's reward function.

verl's reward managers (verl/workers/reward_manager/naive.py) call
``compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)`` once per response, with ``solution_str`` the decoded
response and ``ground_truth`` the row's ``reward_model.ground_truth``; they
take a float, or a dict whose ``"score"`` is the reward (its other keys are
logged).

Here ``ground_truth`` is a JSON string ``{"db_id": ..., "gold": ...}``
(``gold`` a SQL string or a list of alternatives; an optional ``"metric"``
names the metric, default the preset's or the server's). The response is
sent as a completion to a running ``sqljudge serve`` (POST /v1/grade),
which extracts the SQL, runs it and the gold on the database, and answers
the reward of the preset.

Use it in a verl run with::

    sqljudge serve --db database/ --addr 127.0.0.1:8080 &
    python3 -m verl.trainer.main_ppo ... \\
        custom_reward_function.path=examples/verl_reward.py \\
        custom_reward_function.name=compute_score

Settings (environment): SQLJUDGE_URL (default http://127.0.0.1:8080),
SQLJUDGE_PRESET (arctic, skyrl-sql, sql-r1, binary; default arctic),
SQLJUDGE_TIMEOUT (seconds per request, default 180), SQLJUDGE_SERVE_TOKEN
(the server's --token, sent as ``Authorization: Bearer``; none by default).
A request that cannot
reach the server is tried 5 times, 1 s apart, then raises; a request the
server rejects (HTTP 400) raises at once with the server's message.

Standard library only.
"""

import json
import os
import time
import urllib.error
import urllib.request

SQLJUDGE_URL = os.environ.get("SQLJUDGE_URL", "http://127.0.0.1:8080")
SQLJUDGE_PRESET = os.environ.get("SQLJUDGE_PRESET", "arctic")
SQLJUDGE_TIMEOUT = float(os.environ.get("SQLJUDGE_TIMEOUT", "180"))
SQLJUDGE_SERVE_TOKEN = os.environ.get("SQLJUDGE_SERVE_TOKEN", "")
TRIES = 5


def _post(path, payload):
    body = json.dumps(payload).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if SQLJUDGE_SERVE_TOKEN:
        headers["Authorization"] = "Bearer " + SQLJUDGE_SERVE_TOKEN
    last = None
    for _ in range(TRIES):
        req = urllib.request.Request(SQLJUDGE_URL.rstrip("/") + path, data=body, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=SQLJUDGE_TIMEOUT) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            if 400 <= e.code < 500:
                raise ValueError("sqljudge rejected the request: %s" % e.read().decode("utf-8", "replace"))
            last = e
        except (urllib.error.URLError, OSError) as e:
            last = e
        time.sleep(1)
    raise RuntimeError("sqljudge at %s unreachable after %d tries: %s" % (SQLJUDGE_URL, TRIES, last))


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """Grade one response; returns {"score": float, "correct": bool, "verdict": str}."""
    label = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    item = {
        "id": str((extra_info or {}).get("index", "")),
        "db_id": label["db_id"],
        "gold": label["gold"],
        "completion": solution_str,
    }
    if label.get("metric"):
        item["metric"] = label["metric"]
    result = _post("/v1/grade", {"preset": SQLJUDGE_PRESET, "items": [item]})["results"][0]
    return {
        "score": float(result["reward"]),
        "correct": bool(result["correct"]),
        "verdict": result["verdict"],
    }
