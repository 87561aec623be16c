#!/usr/bin/env python3
"""Compare a `sqljudge equiv` run on the Calcite pairs with VeriEQL's verdicts.

  python3 internal/equiv/testdata/oracle/calcite_compare.py OUT
reads OUT/results.jsonl (and OUT/summary.json) of
  sqljudge equiv --pairs internal/equiv/testdata/calcite/pairs.jsonl --out OUT ...
and internal/equiv/testdata/calcite/{pairs,verieql}.jsonl, and prints the
figures issue 19 asks for: pairs each side refutes, the pairs only one side
refutes, witness rows against VeriEQL's counterexample rows on the pairs both
refute, and time per pair (from summary.json). Standard library only.
"""
import json
import os
import statistics
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "calcite")


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def median(xs):
    return statistics.median(xs) if xs else None


def main(out):
    pairs = {p["id"]: p for p in jsonl(os.path.join(HERE, "pairs.jsonl"))}
    ver = {r["id"]: r for r in jsonl(os.path.join(HERE, "verieql.jsonl"))}
    ours = {r["id"]: r for r in jsonl(os.path.join(out, "results.jsonl"))}
    ids = [i for i in pairs if i in ours]
    print("pairs decided: %d of %d" % (len(ids), len(pairs)))
    counts = {}
    for i in ids:
        counts[ours[i]["verdict"]] = counts.get(ours[i]["verdict"], 0) + 1
    print("our verdicts:", json.dumps(counts, sort_keys=True))
    we = {i for i in ids if ours[i]["verdict"] == "inequivalent"}
    they = {i for i in ids if ver[i]["refuted"]}
    key = lambda i: int(i.split("-")[1])
    print("refuted by sqljudge equiv: %d; by VeriEQL: %d; by both: %d"
          % (len(we), len(they), len(we & they)))
    print("\nVeriEQL refutes, we do not:")
    for i in sorted(they - we, key=key):
        r = ours[i]
        print("  %s: ours %s %s; search %s" % (i, r["verdict"], r.get("reason", ""),
              json.dumps(r.get("search", {}).get("phases"))))
    print("\nwe refute, VeriEQL does not (VeriEQL state, bound):")
    for i in sorted(we - they, key=key):
        w = ours[i]["witness"]
        note = pairs[i].get("note", "")
        print("  %s: VeriEQL %s bound %d; witness rows %d%s" % (
            i, ver[i]["state"], ver[i]["bound"], w["rows"],
            "; note: " + note if note else ""))
    rows = [ours[i]["witness"]["rows"] for i in we]
    print("\nwitness rows (all %d refutations): median %s, max %s"
          % (len(rows), median(rows), max(rows) if rows else None))
    both = sorted(we & they, key=key)
    if both:
        o = [ours[i]["witness"]["rows"] for i in both]
        v = [ver[i]["counterexample_rows"] for i in both]
        vq = [ver[i]["counterexample_rows_queried"] for i in both]
        print("on the %d pairs both refute: ours median %s max %s; VeriEQL all "
              "tables median %s max %s; VeriEQL queried tables median %s max %s"
              % (len(both), median(o), max(o), median(v), max(v), median(vq), max(vq)))
        for i, a, b, c in zip(both, o, v, vq):
            print("  %s: ours %d, VeriEQL %d (%d in the queried tables)" % (i, a, b, c))
    summ = os.path.join(out, "summary.json")
    if os.path.exists(summ):
        s = json.load(open(summ))
        print("\ntime per pair (summary.json): %s" % json.dumps(s.get("time_ms")))
        print("engine %s, seed %s, budget %s" % (s.get("engine"), s.get("seed"), s.get("budget")))
    exhausted = sum(1 for i in ids if ours[i].get("search", {}).get("budget_exhausted"))
    print("budget exhausted before the database cap: %d of %d" % (exhausted, len(ids)))


if __name__ == "__main__":
    main(sys.argv[1])
