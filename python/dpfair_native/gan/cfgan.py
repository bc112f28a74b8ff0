"""CFGAN (thesis ch. 7): a causal GAN whose generator is wired along a causal DAG, with a second, weight-sharing
generator under an intervention on the sensitive attribute, trained so that the interventional outcome
distributions agree (no total, path-specific or counterfactual effect).

Architecture and schedule (the thesis gives none; chosen from the literature)
--------------------------------------------------------------------------------
* **One sub-network per node** as CausalGAN (Kocaoglu et al. 2018), which the thesis builds on: node V gets its own
  noise z_V (``noise_dim``) and the one-hot outputs of its parents, two hidden layers of ``hidden`` units, and
  emits V's one-hot through the straight-through Gumbel-softmax (hard one-hots forward, soft gradients back), so
  parents feed discrete values to children as the causal model does. G¹ (observational) and G² (interventional)
  are the same modules run on the same noise, including the Gumbel noise; G² replaces S's output by the constant
  s⁺ or s⁻ in the inputs of S's children.
* **D1** tells real from G¹ records with medGAN's minibatch averaging, layers (256, 128); **D2** sees only ŷ (and,
  for counterfactual fairness, the context O, whose values G¹ and G² share) and tells the s⁺ world from the s⁻
  world. Conditioning D2 on o makes P(ŷ_{s⁺} | o) = P(ŷ_{s⁻} | o) for every o at once, which is the thesis'
  per-context rejection step done for all contexts in one batch.
* **Schedule**: as FairGAN — Adam (lr 1e-3, β₁ = 0.5), ``d_steps`` = 2 discriminator updates per generator
  update, plain CausalGAN in the first half of the epochs, the fairness game added in the second half (λ = 0
  is CausalGAN). The generator uses flipped labels against D2 (the non-saturating form of the min-max J1 + λJ2).

Not differentially private.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import StrOptions, check_int, validate_params
from ..accountants import PrivacySpent
from . import _common as C
from .effects import descendants, parents_of, topological_order

__all__ = ["CFGAN"]

_EFFECTS = ("total", "path_specific", "counterfactual")


class CFGAN:
    """Causal fairness-aware GAN over discrete variables.

    Parameters
    ----------
    graph : dict {child: [parents]}, list of (parent, child) edges, or an oriented ``causal.CausalGraph``
        The causal DAG over all columns of the data.
    sensitive, outcome : str
        Names of the binary sensitive variable S and the binary outcome Y (larger value = s⁺, y⁺).
    effect : {"total", "path_specific", "counterfactual"}, default "total"
        Which effect of S on Y the generated data must not have.
    through : list of str, optional
        For ``"path_specific"``: the children C of S whose edges S → C begin the paths π (e.g. ["marital-status"]
        for the indirect discrimination through marital status). Reference value s⁻.
    context : list of str, optional
        For ``"counterfactual"``: the observed variables O (non-descendants of S).
    lambda_fair : float, default 1.0
        λ of J1 + λJ2; 0 trains CausalGAN.
    epochs, batch_size, noise_dim, hidden, d_steps, learning_rate, n_threads, random_state : training settings.

    Attributes
    ----------
    parents_ : dict node -> list of parents; order_ : a topological order of the nodes.
    encoder_ : TableEncoder of the columns; feature_names_in_, n_features_in_ : the column names and count.
    nodes_ : torch ModuleDict, one sub-network per node; discriminators_ : dict of D1 and D2.
    history_ : dict of per-step losses ("d1", "g", and "d2" once the fairness term is on).
    privacy_spent_ : PrivacySpent (inf, 0, "none"): no privacy guarantee.

    Notes
    -----
    J1 = E_data[log D1(v)] + E_{G¹}[log(1 − D1(v̂))]; J2 = E[log D2(ŷ_{s⁺})] + E[log(1 − D2(ŷ_{s⁻}))] with ŷ_s drawn
    by G² under do(S = s) (total), under the π-specific intervention (path-specific: π-children of S see s, the
    others s⁻), or jointly with the shared context o (counterfactual). At the optimum P_{G¹} = P_data and the
    chosen effect is 0; because G¹ and G² share every weight and noise, the released G¹ data inherits it.
    """

    _parameter_constraints = {**C.TRAINING_CONSTRAINTS, "effect": [StrOptions(set(_EFFECTS))]}

    def __init__(self, graph, *, sensitive, outcome, effect="total", through=None, context=None, lambda_fair=1.0,
                 epochs=40, batch_size=256, noise_dim=8, hidden=32, d_steps=2, learning_rate=1e-3, n_threads=1,
                 random_state=None):
        self.graph = graph
        self.sensitive = sensitive
        self.outcome = outcome
        self.effect = effect
        self.through = through
        self.context = context
        self.lambda_fair = lambda_fair
        self.epochs = epochs
        self.batch_size = batch_size
        self.noise_dim = noise_dim
        self.hidden = hidden
        self.d_steps = d_steps
        self.learning_rate = learning_rate
        self.n_threads = n_threads
        self.random_state = random_state

    # -- validation ----------------------------------------------------------------------------------------------
    def _check_params(self, names):
        validate_params(self)
        for role, name in (("sensitive", self.sensitive), ("outcome", self.outcome)):
            if name not in names:
                raise ValueError(f"{role}={name!r} is not a column of the data {names}")
        if self.sensitive == self.outcome:
            raise ValueError("sensitive and outcome must be different variables")
        parents = parents_of(self.graph, names)
        down = descendants(parents, self.sensitive)
        if self.outcome not in down:
            raise ValueError(f"{self.outcome!r} is not a descendant of {self.sensitive!r} in the graph: "
                             "no effect to remove")
        if self.effect == "path_specific":
            through = list(self.through or [])
            if not through or any(c not in parents or self.sensitive not in parents[c] for c in through):
                raise ValueError(f"effect='path_specific' needs through=[children of {self.sensitive!r}], "
                                 f"got {self.through!r}")
        if self.effect == "counterfactual":
            ctx = list(self.context or [])
            if not ctx or any(c not in names or c in down or c == self.sensitive for c in ctx):
                raise ValueError(f"effect='counterfactual' needs context=[non-descendants of {self.sensitive!r}], "
                                 f"got {self.context!r}")
        return parents

    def _prepare(self, X, y, sensitive_features):
        table, names, is_frame = C.as_table(X, "X")
        extra = [(self.outcome, y), (self.sensitive, sensitive_features)]
        for name, col in extra:
            if col is not None:
                if name in names:
                    raise ValueError(f"{name!r} is both a column of X and passed separately; pass it once")
                col = np.asarray(col, dtype=object).ravel()
                if col.shape[0] != table.shape[0]:
                    raise ValueError(f"{name!r} has {col.shape[0]} entries, X has {table.shape[0]} rows")
                table = np.column_stack([table, np.asarray(col.tolist())]).astype(object)
                names = names + [name]
        self.parents_ = self._check_params(names)
        self.order_ = topological_order(self.parents_)
        self.encoder_ = C.TableEncoder.fit(table, names)
        for name in (self.sensitive, self.outcome):
            if len(self.encoder_.categories[names.index(name)]) != 2:
                raise ValueError(f"{name!r} must be binary")
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.n_features_in_ = len(names)
        self._frame = is_frame
        return self.encoder_.one_hot(self.encoder_.codes(table))

    # -- networks ------------------------------------------------------------------------------------------------
    def _slice(self, name):
        return self.encoder_.groups[list(self.feature_names_in_).index(name)]

    def _build(self, torch):
        nodes = {}
        for v in self.order_:
            a, b = self._slice(v)
            width_in = self.noise_dim + sum(np.diff(self._slice(p))[0] for p in self.parents_[v])
            nodes[v] = C.mlp(torch, [int(width_in), self.hidden, self.hidden], out=b - a)
        self.nodes_ = torch.nn.ModuleDict(nodes)
        width = self.encoder_.width
        context = (self.context or []) if self.effect == "counterfactual" else []
        d2_in = 2 + sum(int(np.diff(self._slice(c))[0]) for c in context)
        self.discriminators_ = {"d1": C.mlp(torch, [2 * width, 256, 128], out=1),
                                "d2": C.mlp(torch, [d2_in, 16], out=1)}
        def opt(mods):
            return torch.optim.Adam([p for m in mods for p in m.parameters()], lr=self.learning_rate,
                                                     betas=(0.5, 0.999))
        self._opt_g, self._opt_d = opt([self.nodes_]), opt(list(self.discriminators_.values()))

    def _noise(self, torch, n, gen):
        """Shared noise of one batch: per-node z and the Gumbel draws of every output column."""
        z = {v: torch.randn((n, self.noise_dim), generator=gen) for v in self.order_}
        u = torch.rand((n, self.encoder_.width), generator=gen).clamp_(1e-10, 1 - 1e-7)
        return z, -torch.log(-torch.log(u))

    def _forward(self, torch, noise, s_of_child=None):
        """One pass through the node networks. ``s_of_child``: None (G¹), or child -> s code (0/1) that child sees
        for S (G²; S's own output is then that code for the total effect's children)."""
        z, gumbel = noise
        values = {}
        for v in self.order_:
            inputs = [z[v]]
            for p in self.parents_[v]:
                if p == self.sensitive and s_of_child is not None:
                    inputs.append(self._constant(torch, len(z[v]), s_of_child(v)))
                else:
                    inputs.append(values[p])
            a, b = self._slice(v)
            logits = self.nodes_[v](torch.cat(inputs, dim=1))
            values[v] = C.gumbel_one_hot(torch, logits, [(0, b - a)], None, noise=gumbel[:, a:b])[0]
        if s_of_child is not None:
            values[self.sensitive] = self._constant(torch, len(z[self.sensitive]), s_of_child(self.sensitive))
        return values

    @staticmethod
    def _constant(torch, n, code):
        out = torch.zeros((n, 2))
        out[:, int(code)] = 1.0
        return out

    def _branches(self):
        """(s⁺ world, s⁻ world) as child -> S code functions."""
        if self.effect == "path_specific":
            through = set(self.through)
            return (lambda c: 1 if c in through else 0), (lambda c: 0)
        return (lambda c: 1), (lambda c: 0)

    def _d2_input(self, torch, values):
        parts = [values[self.outcome]]
        if self.effect == "counterfactual":
            parts += [values[c] for c in self.context]
        return torch.cat(parts, dim=1)

    def _record(self, torch, values):
        return torch.cat([values[v] for v in self.feature_names_in_], dim=1)

    def _step(self, torch, real, fair, gen):
        n = real.shape[0]
        d1, d2 = self.discriminators_["d1"], self.discriminators_["d2"]
        ones, zeros = torch.ones(n), torch.zeros(n)
        plus, minus = self._branches()
        out = {}
        for _ in range(int(self.d_steps)):
            noise = self._noise(torch, n, gen)
            with torch.no_grad():
                fake = self._record(torch, self._forward(torch, noise))
            loss = (C.bce_logits(torch, d1(C.with_batch_mean(torch, real)), ones)
                    + C.bce_logits(torch, d1(C.with_batch_mean(torch, fake)), zeros))
            out["d1"] = loss.item()
            if fair:
                with torch.no_grad():
                    vp, vm = self._forward(torch, noise, plus), self._forward(torch, noise, minus)
                loss_2 = (C.bce_logits(torch, d2(self._d2_input(torch, vp)), ones)
                          + C.bce_logits(torch, d2(self._d2_input(torch, vm)), zeros))
                out["d2"] = loss_2.item()
                loss = loss + loss_2
            self._opt_d.zero_grad()
            loss.backward()
            self._opt_d.step()
        noise = self._noise(torch, n, gen)
        loss = C.bce_logits(torch, d1(C.with_batch_mean(torch, self._record(torch, self._forward(torch, noise)))), ones)
        if fair:
            vp, vm = self._forward(torch, noise, plus), self._forward(torch, noise, minus)
            loss = loss + self.lambda_fair * (C.bce_logits(torch, d2(self._d2_input(torch, vp)), zeros)
                                              + C.bce_logits(torch, d2(self._d2_input(torch, vm)), ones))
        self._opt_g.zero_grad()
        loss.backward()
        self._opt_g.step()
        out["g"] = loss.item()
        return out

    # -- public API ----------------------------------------------------------------------------------------------
    def fit(self, X, y=None, *, sensitive_features=None):
        """Train on a table X of discrete variables (DataFrame; columns = graph nodes). ``y`` and
        ``sensitive_features``, when given, are added as the columns named ``outcome`` and ``sensitive``."""
        data = self._prepare(X, y, sensitive_features)
        torch = C.import_torch()
        gen, _ = C.torch_generator(torch, self.random_state)
        with C.threads(torch, self.n_threads):
            with C.seeded_init(torch, gen):
                self._build(torch)
            real = torch.from_numpy(data)
            self.history_ = {}
            for epoch in range(int(self.epochs)):
                fair = self.lambda_fair > 0 and epoch >= int(self.epochs) // 2
                for idx in torch.randperm(real.shape[0], generator=gen).split(int(self.batch_size)):
                    if len(idx) < 2:
                        continue
                    for k, v in self._step(torch, real[idx], fair, gen).items():
                        self.history_.setdefault(k, []).append(v)
        self.privacy_spent_ = PrivacySpent(math.inf, 0.0, "none")
        return self

    def sample(self, n, random_state=None, *, intervention=None, one_hot=False):
        """``n`` records from G¹, or from G² under ``intervention={sensitive: value}`` (do(S = value): S is that
        value in every row, its children see it, and with the same ``random_state`` every non-descendant of S keeps
        the value it has in the observational sample). A DataFrame when fit on one, else an object array; the
        one-hot matrix (groups in ``encoder_.groups``) with ``one_hot=True``."""
        if not hasattr(self, "nodes_"):
            raise ValueError("this CFGAN is not fitted yet; call fit(X) first")
        check_int(n, "n")
        s_code = self._intervention_code(intervention)
        torch = C.import_torch()
        gen, _ = C.torch_generator(torch, random_state)
        with torch.no_grad(), C.threads(torch, self.n_threads):
            noise = self._noise(torch, int(n), gen)
            branch = None if s_code is None else (lambda c: s_code)
            hard = self._record(torch, self._forward(torch, noise, branch)).numpy()
        if one_hot:
            return hard
        codes = np.column_stack([hard[:, a:b].argmax(axis=1) for a, b in self.encoder_.groups])
        table = self.encoder_.decode(codes)
        if self._frame:
            import pandas as pd

            return pd.DataFrame(table, columns=list(self.feature_names_in_))
        return table

    def _intervention_code(self, intervention):
        if intervention is None:
            return None
        if not isinstance(intervention, dict) or list(intervention) != [self.sensitive]:
            raise ValueError(f"intervention must be {{{self.sensitive!r}: value}}, got {intervention!r}")
        cats = list(self.encoder_.categories[list(self.feature_names_in_).index(self.sensitive)])
        value = intervention[self.sensitive]
        if value not in cats:
            raise ValueError(f"intervention value {value!r} is not one of {self.sensitive!r}'s values {cats}")
        return cats.index(value)
