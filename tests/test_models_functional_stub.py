"""Temporary contract-only stand-ins for dpfair_native.domain / mechanisms, used only until they land."""
import sys, types, math
import numpy as np

def install():  # noqa: C901
    import dpfair_native
    try:
        import dpfair_native.domain, dpfair_native.mechanisms  # noqa
        return False
    except ImportError:
        pass
    dom = types.ModuleType("dpfair_native.domain")
    class FeatureDomain:
        def __init__(self, lower, upper, *, one_hot_groups=(), l1_cap=None, l2_cap=None, names=None):
            self.lower = np.asarray(lower, float); self.upper = np.asarray(upper, float)
            self.one_hot_groups = tuple(tuple(g) for g in one_hot_groups); self.l1_cap = l1_cap; self.l2_cap = l2_cap
            self.names = names
        @classmethod
        def unit_box(cls, d): return cls(np.zeros(d), np.ones(d))
        @classmethod
        def from_dataset(cls, ds): return cls(np.zeros(ds.X.shape[1]), np.ones(ds.X.shape[1]), one_hot_groups=ds.one_hot_groups, names=ds.feature_names)
        @property
        def d(self): return self.lower.shape[0]
        def _absmax(self): return np.maximum(np.abs(self.lower), np.abs(self.upper))
        def max_l1(self):
            m = self._absmax().copy(); tot = 0.0; seen = set()
            for g in self.one_hot_groups:
                tot += m[list(g)].max(); seen |= set(g)
            tot += sum(m[j] for j in range(self.d) if j not in seen)
            return tot if self.l1_cap is None else min(tot, self.l1_cap)
        def max_l2(self):
            m = self._absmax() ** 2; tot = 0.0; seen = set()
            for g in self.one_hot_groups:
                tot += m[list(g)].max(); seen |= set(g)
            tot += sum(m[j] for j in range(self.d) if j not in seen)
            tot = math.sqrt(tot)
            return tot if self.l2_cap is None else min(tot, self.l2_cap)
        def project(self, X, policy="clip"):
            Y = np.clip(X, self.lower, self.upper); n = int(np.sum(np.any(Y != X, axis=1)))
            if n and policy == "raise": raise ValueError("rows outside domain")
            return Y, n
        def functional_sensitivity(self, *, norm="l1", linear_multipliers=(0.5, -0.5), quadratic_coef=0.125, linear_shift=(0.0, 0.0)):
            t = max(abs(linear_multipliers[0]) + abs(linear_shift[0]), abs(linear_multipliers[1]) + abs(linear_shift[1]))
            if norm == "l1":
                L = self.max_l1(); return 2 * (t * L + quadratic_coef * L * L)
            L = self.max_l2(); return 2 * math.sqrt(t * t * L * L + 2 * quadratic_coef ** 2 * L ** 4)
        def functional_sensitivity_split(self, column, norm="l1"):
            f = self.functional_sensitivity(norm=norm); return f, f
        def group_sums_sensitivity(self, norm="l1"):
            if norm == "l1": return 2 * (self.max_l1() + 1)
            return math.sqrt(2) * math.sqrt(self.max_l2() ** 2 + 1)
    dom.FeatureDomain = FeatureDomain
    dom.paper_sensitivity_privlr = lambda d: d * d / 4 + d
    dom.paper_sensitivity_pflr = lambda d: d * d / 4 + 3 * d
    dom.paper_sensitivity_mu = lambda d: 2.0 * d
    mech = types.ModuleType("dpfair_native.mechanisms")
    def _rng(r):
        from dpfair_native._validation import check_random_state
        return check_random_state(r)
    def laplace_mechanism(value, sensitivity, epsilon, *, random_state=None, secure=False):
        v = np.asarray(value, float); return v + _rng(random_state).laplace(scale=sensitivity / epsilon, size=v.shape)
    def classic_gaussian_sigma(D, e, d): return D * math.sqrt(2 * math.log(1.25 / d)) / e
    def extended_gaussian_sigma(D, e, d):
        L = math.log(math.sqrt(2 / math.pi) / d); return math.sqrt(2) * D / (2 * e) * (math.sqrt(L) + math.sqrt(L + e))
    analytic_gaussian_sigma = classic_gaussian_sigma
    def gaussian_mechanism(value, D, e, d, *, calibration="analytic", random_state=None, secure=False):
        s = {"analytic": analytic_gaussian_sigma, "classic": classic_gaussian_sigma, "extended": extended_gaussian_sigma}[calibration](D, e, d)
        v = np.asarray(value, float); return v + _rng(random_state).normal(scale=s, size=v.shape)
    for f in (laplace_mechanism, classic_gaussian_sigma, extended_gaussian_sigma, gaussian_mechanism):
        setattr(mech, f.__name__, f)
    mech.analytic_gaussian_sigma = analytic_gaussian_sigma
    sys.modules["dpfair_native.domain"] = dom; sys.modules["dpfair_native.mechanisms"] = mech
    dpfair_native.domain = dom; dpfair_native.mechanisms = mech
    return True
