"""FairGAN and FairGAN⁺ (thesis ch. 6): GANs that generate discrete tabular data free of a sensitive attribute's
influence, FairGAN⁺ with a fair classifier trained jointly.

Architecture and schedule (the thesis gives none; chosen from the literature)
--------------------------------------------------------------------------------
* **medGAN-style generator** (Choi et al. 2017, which the thesis names as its generator): an autoencoder over the
  one-hot record is pre-trained (``pretrain_epochs``), its decoder then turns the generator's latent code into
  record logits and is fine-tuned with the GAN. Pre-training gives the generator a decoder that already maps to the
  data manifold, which matters with few epochs on a CPU.
* **Discrete outputs**: each categorical column is a one-hot group sampled with the straight-through Gumbel-softmax
  (Jang et al. 2017; CTGAN uses the same), so the discriminators see valid one-hots, not soft vectors they could
  tell apart by their softness, and ``sample`` draws exact categorical values.
* **Discriminator D1** sees the record plus medGAN's minibatch averaging (the batch mean appended to each row),
  which lets it detect mode collapse; layers (256, 128) as the authors' public port.
* **Schedule**: ``d_steps`` = 2 discriminator updates per generator update and Adam (lr 1e-3, β₁ = 0.5) as the
  port; the first half of the epochs trains the plain GAN and the fairness terms join in the second half (the
  port's "N epochs without, N with"), so the generator first learns the data and then removes the dependence.
* **Fairness losses**: the generator uses flipped labels against D2 (the non-saturating form of the thesis'
  min-max, as the port does; the equilibrium is unchanged and the gradient does not vanish when D2 is confident).
  The linear classifier η plays the literal min-max against D3 (it maximises D3's loss): with flipped labels a
  linear η overshoots into the reverse bias. η and D3 are tiny and learn at 10× the GAN's rate.
* **η against D3** (what made η's fairness weak before, measured on a validation part of Adult's training data,
  μ = 20): (1) the min-max of η and D3 cycles instead of converging, so the last iterate's risk difference
  varied 0.01–0.05 with the seed; η's fitted weights are therefore the mean of its iterates over the fairness
  phase. (2) D3 sees η's probability sharpened by a temperature 0.1, so that it looks at η's decisions (what the
  fairness notions are about) rather than the whole score distribution. (3) By default η learns from, and D3
  judges η on, real records only (``eta_on_generated=False``; G still minimises η's loss on its records): with
  generated records in both, η's risk difference on held-out real data stayed at 0.045–0.058 whatever (1)–(2)
  did, against 0.016 without them, at the same accuracy. ``eta_on_generated=True`` is the thesis' literal setup.

Neither model is differentially private: their output depends on every training record without any bound.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from .._validation import NON_NEGATIVE, Interval, StrOptions, check_int, validate_params
from ..accountants import PrivacySpent
from . import _common as C

__all__ = ["FairGAN", "FairGANPlus"]

_FAIRNESS = ("demographic_parity", "equalized_odds", "equal_opportunity")


class _TabularGAN:
    """What FairGAN and FairGAN⁺ share: parameters, input handling, pre-training, sampling."""

    _conditions_on_label = False  # FairGAN⁺ draws y and feeds it to G; FairGAN generates y
    _parameter_constraints = {
        **C.TRAINING_CONSTRAINTS,
        "pretrain_epochs": [Interval(Integral, 0, None, closed="left")],
        "batch_size": [Interval(Integral, 2, None, closed="left")],  # batch normalisation needs 2 rows
    }

    def __init__(self, *, lambda_fair=1.0, epochs=12, pretrain_epochs=2, batch_size=512, noise_dim=64,
                 hidden=128, d_steps=2, learning_rate=1e-3, n_threads=1, random_state=None):
        self.lambda_fair = lambda_fair
        self.epochs = epochs
        self.pretrain_epochs = pretrain_epochs
        self.batch_size = batch_size
        self.noise_dim = noise_dim
        self.hidden = hidden
        self.d_steps = d_steps
        self.learning_rate = learning_rate
        self.n_threads = n_threads
        self.random_state = random_state

    # -- input ---------------------------------------------------------------------------------------------------
    def _prepare(self, X, y, sensitive_features):
        if sensitive_features is None:
            raise ValueError("fit needs sensitive_features=s (one binary value per row)")
        table, columns, is_frame = C.as_table(X)
        n = table.shape[0]
        y01, self.classes_ = C.binary_codes(y, "y", n)
        s01, self.sensitive_values_ = C.binary_codes(sensitive_features, "sensitive_features", n)
        self.encoder_ = C.TableEncoder.fit(table, columns)
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
        self._frame = is_frame
        self.p_sensitive_ = float(s01.mean())
        self.p_label_ = float(y01.mean())
        x = self.encoder_.one_hot(self.encoder_.codes(table))
        return x, y01.astype(np.float32), s01.astype(np.float32)

    def _record_groups(self):
        """One-hot groups of the generated vector: the columns of X, then (FairGAN only) y as a 2-way group."""
        groups = list(self.encoder_.groups)
        if not self._conditions_on_label:
            w = self.encoder_.width
            groups.append((w, w + 2))
        return groups

    # -- networks ------------------------------------------------------------------------------------------------
    def _build_generator(self, torch, width):
        cond = 2 if self._conditions_on_label else 1
        h = self.hidden
        self.encoder_net_ = torch.nn.Sequential(torch.nn.Linear(width, h), torch.nn.Tanh())
        self.decoder_net_ = torch.nn.Linear(h, width)
        self.generator_ = torch.nn.Sequential(C.mlp(torch, [self.noise_dim + cond, h, h], out=h, batch_norm=True),
                                              torch.nn.Tanh())

    def _pretrain(self, torch, data, gen):
        """Autoencoder pre-training of (encoder, decoder) on the real one-hot records (medGAN)."""
        groups = self._record_groups()
        params = list(self.encoder_net_.parameters()) + list(self.decoder_net_.parameters())
        opt = torch.optim.Adam(params, lr=self.learning_rate)
        for _ in range(int(self.pretrain_epochs)):
            for idx in torch.randperm(data.shape[0], generator=gen).split(self.batch_size):
                batch = data[idx]
                loss = C.group_cross_entropy(torch, self.decoder_net_(self.encoder_net_(batch)), batch, groups)
                opt.zero_grad()
                loss.backward()
                opt.step()

    def _generate(self, torch, cond, gen):
        """(hard one-hot records, soft probabilities) for conditioning rows ``cond`` (n × 1 or n × 2)."""
        z = torch.randn((cond.shape[0], self.noise_dim), generator=gen)
        logits = self.decoder_net_(self.generator_(torch.cat([z, cond], dim=1)))
        return C.gumbel_one_hot(torch, logits, self._record_groups(), gen)

    def _d1_input(self, torch, record, cond):
        return C.with_batch_mean(torch, torch.cat([record, cond], dim=1))

    # -- sampling ------------------------------------------------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "generator_"):
            raise ValueError(f"this {type(self).__name__} is not fitted yet; call fit(X, y, sensitive_features=s)")

    def _draw(self, n, random_state):
        """(one-hot records, y ∈ {0,1}, s ∈ {0,1}) of n generated rows."""
        self._check_fitted()
        check_int(n, "n")
        torch = C.import_torch()
        gen, rng = C.torch_generator(torch, random_state)
        s = (rng.random(int(n)) < self.p_sensitive_).astype(np.float32)
        y = (rng.random(int(n)) < self.p_label_).astype(np.float32)
        cond = np.column_stack([y, s]) if self._conditions_on_label else s[:, None]
        self.generator_.eval()
        with torch.no_grad(), C.threads(torch, self.n_threads):
            hard, _ = self._generate(torch, torch.from_numpy(cond), gen)
        self.generator_.train()
        hard = hard.numpy()
        if not self._conditions_on_label:
            w = self.encoder_.width
            y, hard = hard[:, w + 1].copy(), hard[:, :w]
        return hard, y.astype(np.int64), s.astype(np.int64)

    def sample(self, n, random_state=None, *, one_hot=False):
        """Generate ``n`` records.

        Parameters
        ----------
        n : int
        random_state : int, numpy Generator or None
        one_hot : bool, default False
            Return X as the one-hot matrix (groups in ``encoder_.groups``) instead of the original values.

        Returns
        -------
        X : DataFrame (when fit on one) or object array of the original column values, or the one-hot matrix
        y : array of the original label values
        s : array of the original sensitive values
        """
        hard, y, s = self._draw(n, random_state)
        ys, ss = self.classes_[y], self.sensitive_values_[s]
        if one_hot:
            return hard.astype(np.float32), ys, ss
        codes = np.column_stack([hard[:, a:b].argmax(axis=1) for a, b in self.encoder_.groups])
        X = self.encoder_.decode(codes)
        if self._frame:
            import pandas as pd

            X = pd.DataFrame(X, columns=list(self.feature_names_in_))
        return X, ys, ss

    def _optimizer(self, torch, modules):
        params = [p for m in modules for p in m.parameters()]
        return torch.optim.Adam(params, lr=self.learning_rate, betas=(0.5, 0.999))

    def _batches(self, torch, n, gen):
        return torch.randperm(n, generator=gen).split(self.batch_size)

    def fit(self, X, y, *, sensitive_features):
        """Train on discrete records X (DataFrame or 2-D array; bin continuous columns first), binary labels y and
        a binary sensitive attribute. Returns self."""
        validate_params(self)
        data = self._prepare(X, y, sensitive_features)
        torch = C.import_torch()
        gen, _ = C.torch_generator(torch, self.random_state)
        with C.threads(torch, self.n_threads):
            torch_data = [torch.from_numpy(a) for a in data]
            with C.seeded_init(torch, gen):
                self._build(torch)
            pre = torch.cat([torch_data[0], self._label_block(torch, torch_data[1])], dim=1)
            self._pretrain(torch, pre, gen)
            self.history_ = {}
            for epoch in range(int(self.epochs)):
                fair = epoch >= int(self.epochs) // 2
                for idx in self._batches(torch, data[0].shape[0], gen):
                    if len(idx) < 2:
                        continue
                    losses = self._step(torch, [a[idx] for a in torch_data], fair, gen)
                    for k, v in losses.items():
                        self.history_.setdefault(k, []).append(v)
            self._finish(torch)
        self.privacy_spent_ = PrivacySpent(math.inf, 0.0, "none")
        return self

    def _finish(self, torch):
        """Hook run once after the last epoch (FairGAN⁺ installs η's averaged weights)."""

    def _label_block(self, torch, y):
        if self._conditions_on_label:
            return y[:, None][:, :0]
        return torch.stack([1 - y, y], dim=1)


class FairGAN(_TabularGAN):
    """FairGAN (thesis §6.1): G(z, s) generates (x̂, ŷ) with s ~ P(S); D1 tells real (x, y, s) from generated, D2
    tries to recover s from generated (x̂, ŷ). Fair data: (x̂, ŷ) carries no information on s.

    Parameters
    ----------
    lambda_fair : float, default 1.0
        λ of the objective min_G max_D V1 + λ V2 (λ = 0 is the unconstrained GAN, the thesis' baseline).
    epochs : int, default 12
        GAN epochs over the data; the fairness term is on in the second half. The defaults (12 epochs, 2 of
        pre-training, batch 512) are the settings of ``reproduce fairgan``: a few minutes per fit on Adult's
        36,000 training rows on one CPU thread (the thesis: 2 × 2000 epochs, batch 1000).
    pretrain_epochs : int, default 2
        Autoencoder pre-training epochs (0 skips it).
    batch_size, noise_dim, hidden, d_steps, learning_rate : training settings (see the module docstring).
    n_threads : int, default 1
        torch threads during fit and sample (restored afterwards).
    random_state : int, numpy Generator or None

    Attributes
    ----------
    encoder_ : TableEncoder of X's columns (``groups`` gives each column's slice of the one-hot vector).
    feature_names_in_, n_features_in_ : X's column names and count.
    classes_ : the two label values (the larger is coded 1).
    sensitive_values_ : the two sensitive values (the larger is coded 1).
    p_sensitive_, p_label_ : training frequencies of s = 1 and y = 1 (s is drawn from the former when sampling).
    generator_, encoder_net_, decoder_net_, discriminators_ : the torch modules.
    history_ : dict of per-step losses ("d1", "g", and "d2" once the fairness term is on).
    privacy_spent_ : PrivacySpent (inf, 0, "none"): no privacy guarantee.

    Notes
    -----
    V1 = E_data[log D1(x, y, s)] + E_G[log(1 − D1(x̂, ŷ, ŝ))], V2 = E_{G|s=1}[log D2(x̂, ŷ)] + E_{G|s=0}[log(1 −
    D2(x̂, ŷ))]. At the optimum P_G(x, y, s) = P_data and P_G(x, y | s = 1) = P_G(x, y | s = 0): the two conflict,
    and λ sets the trade-off. Not differentially private.
    """

    def _build(self, torch):
        width = self.encoder_.width + 2
        self._build_generator(torch, width)
        self.discriminators_ = {
            "d1": C.mlp(torch, [2 * (width + 1), 256, 128], out=1),
            "d2": C.mlp(torch, [width, 128], out=1),
        }
        self._opt_g = self._optimizer(torch, [self.generator_, self.decoder_net_])
        self._opt_d = self._optimizer(torch, list(self.discriminators_.values()))

    def _step(self, torch, batch, fair, gen):
        x, y, s = batch
        real = torch.cat([x, self._label_block(torch, y)], dim=1)
        s_fake = (torch.rand(len(s), generator=gen) < self.p_sensitive_).float()
        d1, d2 = self.discriminators_["d1"], self.discriminators_["d2"]
        ones, zeros = torch.ones(len(s)), torch.zeros(len(s))
        out = {}
        for _ in range(int(self.d_steps)):
            fake, _ = self._generate(torch, s_fake[:, None], gen)
            fake = fake.detach()
            loss = (C.bce_logits(torch, d1(self._d1_input(torch, real, s[:, None])), ones)
                    + C.bce_logits(torch, d1(self._d1_input(torch, fake, s_fake[:, None])), zeros))
            out["d1"] = loss.item()
            if fair:
                loss_2 = C.bce_logits(torch, d2(fake), s_fake)
                out["d2"] = loss_2.item()
                loss = loss + loss_2
            self._opt_d.zero_grad()
            loss.backward()
            self._opt_d.step()
        fake, _ = self._generate(torch, s_fake[:, None], gen)
        loss = C.bce_logits(torch, d1(self._d1_input(torch, fake, s_fake[:, None])), ones)
        if fair:
            loss = loss + self.lambda_fair * C.bce_logits(torch, d2(fake), 1 - s_fake)
        self._opt_g.zero_grad()
        loss.backward()
        self._opt_g.step()
        out["g"] = loss.item()
        return out


class FairGANPlus(_TabularGAN):
    """FairGAN⁺ (thesis §6.2): G(z, y, s) generates x̂ for y ~ P(Y), s ~ P(S) drawn independently; a logistic
    classifier η is trained on real and generated data, and D3 tries to recover s from η's output.

    Parameters
    ----------
    fairness : {"demographic_parity", "equalized_odds", "equal_opportunity"}
        What D3 sees: η(x) (demographic parity), (η(x), y) (equalised odds), η(x) on rows with y = 1 only (equal
        opportunity).
    lambda_fair : float, default 1.0
        λ, weight of V2 (fair data).
    mu : float, default 20.0
        μ, weight of V3 (fair classifier) against η's likelihood (a mean cross-entropy). The thesis' μ = 1 is
        far too weak at these settings (η's risk difference on Adult stayed ≈ 0.17); 20 was chosen among 10, 20
        and 30 on a validation part of Adult's training data (``experiments.fairgan.select_mu``; η's risk
        difference 0.016 and −0.001 at accuracy 0.819 and 0.815 on two splits).
    eta_on_generated : bool, default False
        Train η on generated records as well as real ones, and let D3 judge η on both (the thesis' setup). Off
        by default: on Adult it leaves η's risk difference about three times higher (module docstring).
    epochs, pretrain_epochs, batch_size, noise_dim, hidden, d_steps, learning_rate, n_threads, random_state :
        as in FairGAN.

    Attributes
    ----------
    classifier_ : torch.nn.Linear, η's logistic regression on the one-hot X.
    encoder_, feature_names_in_, n_features_in_, classes_, sensitive_values_, p_sensitive_, p_label_, generator_,
    encoder_net_, decoder_net_, discriminators_, history_, privacy_spent_ : as in FairGAN (history_ adds "eta" and
    "d3").

    Notes
    -----
    min_{G,η} max_{D1,D2,D3} V1 + λV2 + μV3 − L with V1, V2 as FairGAN's (conditioned on the drawn (y, s)),
    V3 = E_{s=1}[log D3(η̃(x))] + E_{s=0}[log(1 − D3(η̃(x)))] over real x (and generated x̂ with
    ``eta_on_generated``), η̃ = σ(logit / 0.1) the sharpened score, and L the log-likelihood of y under η on real
    data (and generated data with ``eta_on_generated``); G maximises L on its records in both modes, so x̂
    matches its class. The fitted η is the mean of η's iterates over the fairness phase. Not differentially
    private.
    """

    _conditions_on_label = True
    _D3_TEMPERATURE = 0.1  # see _d3_loss; chosen on a validation split of Adult's training part
    _parameter_constraints = {
        **_TabularGAN._parameter_constraints,
        "fairness": [StrOptions(set(_FAIRNESS))],
        "mu": [NON_NEGATIVE],
        "eta_on_generated": ["boolean"],
    }

    def __init__(self, fairness="demographic_parity", *, lambda_fair=1.0, mu=20.0, eta_on_generated=False,
                 epochs=12, pretrain_epochs=2, batch_size=512, noise_dim=64, hidden=128, d_steps=2,
                 learning_rate=1e-3, n_threads=1, random_state=None):
        super().__init__(lambda_fair=lambda_fair, epochs=epochs, pretrain_epochs=pretrain_epochs,
                         batch_size=batch_size, noise_dim=noise_dim, hidden=hidden, d_steps=d_steps,
                         learning_rate=learning_rate, n_threads=n_threads, random_state=random_state)
        self.fairness = fairness
        self.mu = mu
        self.eta_on_generated = eta_on_generated

    def _build(self, torch):
        width = self.encoder_.width
        self._build_generator(torch, width)
        d3_in = 2 if self.fairness == "equalized_odds" else 1
        self.discriminators_ = {
            "d1": C.mlp(torch, [2 * (width + 2), 256, 128], out=1),
            "d2": C.mlp(torch, [width + 1, 128], out=1),
            "d3": C.mlp(torch, [d3_in, 16], out=1),
        }
        self.classifier_ = torch.nn.Linear(width, 1)
        self._opt_g = self._optimizer(torch, [self.generator_, self.decoder_net_])
        # η (a logistic regression) and its adversary D3 are tiny: they learn at 10x the GAN's rate, so that η
        # converges within the GAN's epochs and D3 tracks η closely enough to push it to independence.
        fast = 10 * self.learning_rate
        self._opt_d = torch.optim.Adam([
            {"params": [p for k in ("d1", "d2") for p in self.discriminators_[k].parameters()]},
            {"params": self.discriminators_["d3"].parameters(), "lr": fast}], lr=self.learning_rate, betas=(0.5, 0.999))
        self._opt_eta = torch.optim.Adam(self.classifier_.parameters(), lr=fast)
        self._eta_steps, self._eta_mean = 0, None

    def _d3_loss(self, torch, x, y, s, flip):
        """BCE of D3 recovering s (or 1 − s when ``flip``) from η(x) as the fairness notion says.

        D3 sees η's probability sharpened by the temperature ``_D3_TEMPERATURE`` (σ(logit / τ)): the fairness
        notions are about η's decisions, and the sharpened output puts D3's attention, and so η's gradient, on the
        rows near the decision threshold instead of on the whole shape of η's score distribution.
        """
        p = torch.sigmoid(self.classifier_(x) / self._D3_TEMPERATURE)
        if self.fairness == "equalized_odds":
            p = torch.cat([p, y[:, None]], dim=1)
        elif self.fairness == "equal_opportunity":
            keep = y > 0.5
            if not bool(keep.any()):
                return torch.zeros(())
            p, s = p[keep], s[keep]
        target = 1 - s if flip else s
        return C.bce_logits(torch, self.discriminators_["d3"](p), target)

    def _eta_likelihood(self, torch, x, y, frozen=False):
        """BCE of η on (x, y); ``frozen``: through η's current weights as constants (the gradient reaches x only)."""
        if not frozen:
            return C.bce_logits(torch, self.classifier_(x), y)
        layer = self.classifier_
        return C.bce_logits(torch, torch.nn.functional.linear(x, layer.weight.detach(), layer.bias.detach()), y)

    def _step(self, torch, batch, fair, gen):
        x, y, s = batch
        n = len(s)
        y_f = (torch.rand(n, generator=gen) < self.p_label_).float()
        s_f = (torch.rand(n, generator=gen) < self.p_sensitive_).float()
        cond_f, cond_r = torch.stack([y_f, s_f], dim=1), torch.stack([y, s], dim=1)
        d1, d2 = self.discriminators_["d1"], self.discriminators_["d2"]
        ones, zeros = torch.ones(n), torch.zeros(n)
        out = {}
        for _ in range(int(self.d_steps)):
            fake = self._generate(torch, cond_f, gen)[0].detach()
            loss = (C.bce_logits(torch, d1(self._d1_input(torch, x, cond_r)), ones)
                    + C.bce_logits(torch, d1(self._d1_input(torch, fake, cond_f)), zeros))
            out["d1"] = loss.item()
            if fair:
                loss = loss + C.bce_logits(torch, d2(torch.cat([fake, y_f[:, None]], 1)), s_f)
                d3 = self._d3_loss(torch, x, y, s, False)
                if self.eta_on_generated:
                    d3 = d3 + self._d3_loss(torch, fake, y_f, s_f, False)
                out["d3"] = d3.item()
                loss = loss + d3
            self._opt_d.zero_grad()
            loss.backward()
            self._opt_d.step()
        fake = self._generate(torch, cond_f, gen)[0]
        loss_g = C.bce_logits(torch, d1(self._d1_input(torch, fake, cond_f)), ones)
        # L on generated rows: G always minimises it (x̂ must look like its class y); η only if eta_on_generated
        loss_g = loss_g + self._eta_likelihood(torch, fake, y_f, frozen=not self.eta_on_generated)
        if fair:
            loss_g = loss_g + self.lambda_fair * C.bce_logits(torch, d2(torch.cat([fake, y_f[:, None]], 1)), 1 - s_f)
        loss_eta = self._eta_likelihood(torch, x, y)
        if fair:  # η maximises D3's loss (the literal min-max: flipped labels make a linear η overshoot)
            loss_eta = loss_eta - self.mu * self._d3_loss(torch, x, y, s, False)
            if self.eta_on_generated:
                loss_eta = loss_eta - self.mu * self._d3_loss(torch, fake.detach(), y_f, s_f, False)
        self._opt_g.zero_grad()
        self._opt_eta.zero_grad()
        (loss_g + loss_eta).backward()
        self._opt_g.step()
        self._opt_eta.step()
        if fair:
            self._average_eta(torch)
        out["g"], out["eta"] = loss_g.item(), loss_eta.item()
        return out

    def _average_eta(self, torch):
        """Running mean of η's weights over the fairness phase. The min-max of η against D3 cycles around its
        equilibrium rather than converging to it, so the last iterate's bias depends on where the cycle stopped
        (risk differences of 0.01–0.05 between seeds); the mean of the iterates settles at the equilibrium."""
        with torch.no_grad():
            w = torch.cat([p.detach().ravel() for p in self.classifier_.parameters()])
            self._eta_steps += 1
            if self._eta_steps == 1:
                self._eta_mean = w.clone()
            else:
                self._eta_mean += (w - self._eta_mean) / self._eta_steps

    def _finish(self, torch):
        if self._eta_steps > 0:
            with torch.no_grad():
                torch.nn.utils.vector_to_parameters(self._eta_mean, self.classifier_.parameters())
        del self._eta_mean, self._eta_steps

    def predict_proba(self, X):
        """(n, 2) probabilities of classes_[0], classes_[1] from η on discrete records X (same columns as fit)."""
        self._check_fitted()
        torch = C.import_torch()
        table, columns, _ = C.as_table(X)
        if len(columns) != self.n_features_in_:
            raise ValueError(f"X has {len(columns)} columns, the model was fit on {self.n_features_in_}")
        x = torch.from_numpy(self.encoder_.one_hot(self.encoder_.codes(table)))
        with torch.no_grad():
            p = torch.sigmoid(self.classifier_(x)).numpy().ravel().astype(np.float64)
        return np.column_stack([1 - p, p])

    def predict(self, X):
        """η's labels (values of classes_) for discrete records X."""
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.5).astype(np.int64)]
