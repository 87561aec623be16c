"""Spider dev inputs of the oracle scripts (oracle_skyrl.py, oracle_sqlr1.py).

read(spider) returns the gold of dev_gold.sql as (sql, db_id) pairs and, by
system of SYSTEMS, the predicted SQL of predictions/<system>.sql.
"""

import os

SYSTEMS = ("din_sql", "c3")


def read(spider):
    gold = []
    with open(os.path.join(spider, "dev_gold.sql")) as f:
        for line in f:
            if line.strip():
                sql, db = line.rstrip("\n").split("\t")
                gold.append((sql, db))
    preds = {}
    for system in SYSTEMS:
        with open(os.path.join(spider, "predictions", system + ".sql")) as f:
            preds[system] = [l.rstrip("\n").split("\t")[0] for l in f]
    return gold, preds
