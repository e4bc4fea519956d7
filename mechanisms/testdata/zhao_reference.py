#!/usr/bin/env python3
"""Reference values for the Zhao et al. (p3) mechanisms, independent of the Go code.

Every number in pmopt_test.go, threeoutputs_test.go, hybrid_test.go and
zhao_thresholds_test.go that is marked "testdata/zhao_reference.py" is printed
by this script. It uses mpmath at 50 significant digits and the formulas of
../shared/specs/p3_ldpfl.md §2 as written there (corrected per ERRATA E3.1-E3.5),
with its own root finders (mpmath.findroot from a bisection start), so it shares
no code or algorithm detail with the Go implementation: the Go code bisects
scaled float64 equations, this script solves the unscaled ones in high
precision. Worst cases are maxima over the candidate maximisers of each closed
form; crossovers are roots of differences of worst cases.

Run: python3 mechanisms/testdata/zhao_reference.py   (needs mpmath; a few seconds)
"""
from mpmath import mp, mpf, exp, log, sqrt, findroot, cbrt, expm1

mp.dps = 50


def E(eps):
    return exp(mpf(eps))


def bisect(f, lo, hi, n=200):
    lo, hi = mpf(lo), mpf(hi)
    flo = f(lo)
    assert flo * f(hi) < 0, (lo, hi)
    for _ in range(n):
        m = (lo + hi) / 2
        if f(m) * flo > 0:
            lo = m
        else:
            hi = m
    return (lo + hi) / 2


def root(f, lo, hi):
    # bisection to 40 bits, then Newton/secant polish in high precision
    x0 = bisect(f, lo, hi, n=40)
    return findroot(f, x0, tol=mpf(10) ** (-45))


# --- baselines -------------------------------------------------------------
def V_laplace(eps):
    return 8 / mpf(eps) ** 2


def V_duchi(eps):
    e = E(eps)
    return ((e + 1) / (e - 1)) ** 2


# --- piecewise family, eq. (31) ---------------------------------------------
def pw_var(eps, t, x):
    e = E(eps)
    return (t + 1) * x ** 2 / (e - 1) + (t + e) * ((t + 1) ** 3 + e - 1) / (3 * t ** 2 * (e - 1) ** 2)


def V_pm(eps):
    return pw_var(eps, exp(mpf(eps) / 2), 1)


def V_pmsub(eps):
    return pw_var(eps, exp(mpf(eps) / 3), 1)


def t_opt(eps):
    e = E(eps)
    q = lambda t: t ** 4 + 2 * e * t ** 3 - 2 * e * t - e ** 2
    return root(q, 1, 1 + cbrt(e / 2))


def V_pmopt(eps):
    return pw_var(eps, t_opt(eps), 1)


# --- Three-Outputs, §2.5 ----------------------------------------------------
EPS_PRIME = log((3 + sqrt(65)) / 2)


def a_opt(eps):
    eps = mpf(eps)
    e = E(eps)
    if eps < log(2):
        return mpf(0)
    if eps > EPS_PRIME:
        return e / (e + 2)
    g = lambda a: 2 * a ** 3 + a ** 2 * (-e ** 2 - 5 - 4 * e) + a * (7 * e - 4 * e ** 2 - e ** 3) + (2 * e ** 3 - 4 * e ** 2)
    if g(0) == 0:
        return mpf(0)
    return root(g, 0, e / (e + 2))


def to_C(eps, a):
    e = E(eps)
    return e * (e + 1) / ((e - 1) * (e - a))


def to_var(eps, a, x):  # eq. (25)
    e = E(eps)
    C = to_C(eps, a)
    b = a * (1 - 1 / e)
    return C ** 2 * (1 - a) + C ** 2 * b * abs(x) - x ** 2


def to_vertex(eps, a):
    e = E(eps)
    return to_C(eps, a) ** 2 * a * (1 - 1 / e) / 2


def V_to(eps):  # eq. (122)
    eps = mpf(eps)
    e = E(eps)
    if eps < log(2):
        return V_duchi(eps)
    if eps > EPS_PRIME:
        return (e + 2) * (e + 10) / (4 * (e - 1) ** 2)
    a = a_opt(eps)
    return (e + 1) ** 2 * e ** 2 / (e - 1) ** 2 * ((1 - a) / (e - a) ** 2 + (e + 1) ** 2 * a ** 2 / (4 * (e - a) ** 4))


# --- HM, §2.4 -----------------------------------------------------------------
def hm_alpha(eps):
    return 1 - exp(-mpf(eps) / 2) if mpf(eps) > mpf("0.61") else mpf(0)


def hm_var(eps, x):
    al = hm_alpha(eps)
    return al * pw_var(eps, exp(mpf(eps) / 2), x) + (1 - al) * (V_duchi(eps) - x ** 2)


def V_hm(eps):
    return max(hm_var(eps, 0), hm_var(eps, 1))


# --- HM-TP, §2.10 -------------------------------------------------------------
X5 = root(lambda x: 3 * x ** 5 - 2 * x ** 3 + 3 * x ** 2 - 5 * x - 3, mpf("1.2"), mpf("1.25"))
EPS_STAR = 3 * log(X5)


def hmtp_beta(eps):
    eps = mpf(eps)
    c, t, a = E(eps), exp(eps / 3), a_opt(eps)
    if eps < EPS_STAR:
        return mpf(0)
    if eps < log(2):
        return (2 * (c - a) ** 2 * (c - 1) - a * c * (c + 1) ** 2) / (2 * (c - a) ** 2 * (c + t) - a * c * (c + 1) ** 2)
    A = (-a ** 2 * c ** 2 * (c + 1) ** 4 / (4 * (c + t) ** 2 * (c - 1) * (c - a) ** 4)
         + ((t + 1) ** 3 + c - 1) / (3 * t ** 2 * (c - 1) ** 2)
         - (1 - a) * c ** 2 * (c + 1) ** 2 / ((c + t) * (c - 1) ** 2 * (c - a) ** 2))
    B = -(1 + t) ** 2 * a ** 2 * c ** 2 * (c + 1) ** 4 / (4 * (c + t) ** 2 * (c - a) ** 4 * (c - 1))
    return min(max((c - 1 - sqrt(B / A)) / (c + t), 0), 1)


def hmtp_var(eps, beta, x):  # eq. (173)
    eps = mpf(eps)
    c, t, a = E(eps), exp(eps / 3), a_opt(eps)
    V0P = (t + c) * ((t + 1) ** 3 + c - 1) / (3 * t ** 2 * (c - 1) ** 2)
    return ((beta * (t + 1) / (c - 1) + beta - 1) * x ** 2
            + (1 - beta) * a * c * (c + 1) ** 2 / ((c - 1) * (c - a) ** 2) * abs(x)
            + beta * V0P + (1 - beta) * (1 - a) * c ** 2 * (c + 1) ** 2 / ((c - 1) ** 2 * (c - a) ** 2))


def hmtp_xstar(eps, beta):  # Lemma 11
    eps = mpf(eps)
    c, t, a = E(eps), exp(eps / 3), a_opt(eps)
    den = 2 * (c - a) ** 2 * (beta * (c + t) - c + 1)
    return (beta - 1) * a * c * (c + 1) ** 2 / den if den != 0 else mpf(0)


def V_hmtp(eps):
    b = hmtp_beta(eps)
    cands = [mpf(0), mpf(1), min(max(hmtp_xstar(eps, b), mpf(0)), mpf(1))]
    return max(hmtp_var(eps, b, x) for x in cands)


def p(label, v):
    print("%-40s %s" % (label, mp.nstr(v, 20)))


if __name__ == "__main__":
    p("eps' = ln((3+sqrt65)/2)", EPS_PRIME)
    p("eps* (eq. 151)", EPS_STAR)
    for eps in ["0.001", "0.3", "0.5", "0.65", "1", "1.5", "2", "4", "8", "16", "30"]:
        p("t*(%s)" % eps, t_opt(mpf(eps)))
        p("V_pmopt(%s)" % eps, V_pmopt(mpf(eps)))
    p("t*(ln sqrt2)", t_opt(log(sqrt(2))))
    for eps in ["0.5", "0.7", "1", "1.5", "2", "4", "8", "30"]:
        e = mpf(eps)
        a = a_opt(e)
        p("a(%s)" % eps, a)
        p("C(%s)" % eps, to_C(e, a))
        p("V_to(%s)" % eps, V_to(e))
        p("V_to(%s) via vertex" % eps, to_var(e, a, min(to_vertex(e, a), 1)))
        p("Var_to(%s, x=0.3)" % eps, to_var(e, a, mpf("0.3")))
    for eps in ["0.5", "0.65", "1", "4", "8"]:
        e = mpf(eps)
        p("alpha(%s)" % eps, hm_alpha(e))
        p("V_hm(%s)" % eps, V_hm(e))
        p("Var_hm(%s, 0)" % eps, hm_var(e, 0))
        p("Var_hm(%s, 1)" % eps, hm_var(e, 1))
    for eps in ["0.5", "0.65", "1", "1.5", "2", "4", "8"]:
        e = mpf(eps)
        b = hmtp_beta(e)
        p("beta(%s)" % eps, b)
        p("V_hmtp(%s)" % eps, V_hmtp(e))
        p("x*(%s)" % eps, hmtp_xstar(e, b))
        p("Var_hmtp(%s, 1)" % eps, hmtp_var(e, b, 1))
    # crossovers (Tables I/II; E3.13)
    p("duchi = pm", root(lambda e: V_duchi(e) - V_pm(e), 1, "1.6"))
    p("duchi = laplace", root(lambda e: V_duchi(e) - V_laplace(e), 2, "2.6"))
    p("duchi = pm-sub", root(lambda e: V_duchi(e) - V_pmsub(e), 1, "1.4"))
    p("three-outputs = pm-sub", root(lambda e: V_to(e) - V_pmsub(e), "2.3", "2.8"))
    p("three-outputs = pm", root(lambda e: V_to(e) - V_pm(e), 3, "3.5"))
    p("hm = hm-tp (1)", bisect(lambda e: V_hm(e) - V_hmtp(e), "0.64", "0.66", 120))
    p("hm = hm-tp (2)", bisect(lambda e: V_hm(e) - V_hmtp(e), "0.69", "0.70", 120))
    p("hm = hm-tp (3)", bisect(lambda e: V_hm(e) - V_hmtp(e), "1.5", "1.7", 120))
    p("pm-opt = hm-tp", bisect(lambda e: V_pmopt(e) - V_hmtp(e), 5, "5.6", 120))
