# Writes mcnemar_scipy.tsv: McNemar's exact two-sided p-value for discordant
# counts (only_a, only_b), computed independently of sqljudge with
# scipy.stats.binomtest(min(only_a, only_b), only_a + only_b, 0.5).pvalue
# (Debian python3-scipy 1.10.1). Run: python3 mcnemar_scipy.py > mcnemar_scipy.tsv
from scipy.stats import binomtest

PAIRS = [(0, 0), (1, 0), (5, 5), (3, 10), (10, 3), (0, 7), (12, 30), (45, 61),
         (100, 140), (1, 50), (0, 200), (400, 520), (2000, 2100), (17, 34), (60, 29)]
print("only_a\tonly_b\tp")
for a, b in PAIRS:
    n = a + b
    p = binomtest(min(a, b), n, 0.5).pvalue if n > 0 else 1.0
    print("%d\t%d\t%r" % (a, b, p))
