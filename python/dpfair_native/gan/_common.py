"""Shared pieces of the fair GANs: the lazy torch import, discrete-table encoding, validation, network blocks."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from .._validation import NON_NEGATIVE, POSITIVE, POSITIVE_INT, check_random_state

TORCH_HINT = 'dpfair_native.gan needs PyTorch (CPU is enough): pip install "dpfair_native[gan]"'


def import_torch():
    """torch, or an ImportError that says how to install the optional extra."""
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - exercised only without torch
        raise ImportError(TORCH_HINT) from exc
    return torch


class TableEncoder:
    """One-hot encoding of a table of discrete columns (any hashable values: ints, strings, bools).

    ``groups`` lists, per column, the slice of the one-hot vector it occupies; ``decode`` maps category codes back.
    """

    def __init__(self, columns: Sequence[str], categories: Sequence[np.ndarray]):
        self.columns = list(columns)
        self.categories = [np.asarray(c) for c in categories]
        sizes = [len(c) for c in self.categories]
        starts = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.groups: List[Tuple[int, int]] = [(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        self.width = int(starts[-1])

    @classmethod
    def fit(cls, table: np.ndarray, columns: Sequence[str]) -> TableEncoder:
        cats = []
        for j, name in enumerate(columns):
            values = np.unique(table[:, j])
            if values.size < 2:
                raise ValueError(f"column {name!r} takes a single value; drop it before fitting (it carries nothing)")
            cats.append(values)
        return cls(columns, cats)

    def codes(self, table: np.ndarray) -> np.ndarray:
        out = np.empty(table.shape, dtype=np.int64)
        for j, cats in enumerate(self.categories):
            idx = np.searchsorted(cats, table[:, j])
            idx = np.clip(idx, 0, len(cats) - 1)
            if np.any(cats[idx] != table[:, j]):
                raise ValueError(f"column {self.columns[j]!r} has values not seen in fit; categories are {list(cats)}")
            out[:, j] = idx
        return out

    def one_hot(self, codes: np.ndarray) -> np.ndarray:
        X = np.zeros((codes.shape[0], self.width), dtype=np.float32)
        rows = np.arange(codes.shape[0])
        for j, (a, _) in enumerate(self.groups):
            X[rows, a + codes[:, j]] = 1.0
        return X

    def decode(self, codes: np.ndarray) -> np.ndarray:
        return np.column_stack([self.categories[j][codes[:, j]] for j in range(len(self.columns))])


def as_table(X, name: str = "X") -> Tuple[np.ndarray, List[str], bool]:
    """(object array n × d, column names, was it a DataFrame) of a 2-D table of discrete values."""
    is_frame = hasattr(X, "columns") and hasattr(X, "to_numpy")
    if is_frame:
        columns = [str(c) for c in X.columns]
        table = np.array(X.to_numpy(dtype=object), dtype=object)
    else:
        table = np.array(X, dtype=object)
        if table.ndim != 2:
            raise ValueError(f"{name} must be 2-D (n_samples, n_columns) of discrete values, got shape {table.shape}")
        columns = [f"x{j}" for j in range(table.shape[1])]
    if table.shape[0] < 2 or table.shape[1] < 1:
        raise ValueError(f"{name} needs at least 2 rows and 1 column, got shape {table.shape}")
    for j in range(table.shape[1]):
        col = np.asarray(table[:, j].tolist())  # one numpy type per column, so np.unique sorts it
        bad = f"{name} column {columns[j]!r}"
        if col.dtype.kind == "O" and any(v is None for v in col):
            raise ValueError(f"{bad} has missing values; drop or impute them")
        if col.dtype.kind == "f":
            if not np.all(np.isfinite(col)):
                raise ValueError(f"{bad} has missing or non-finite values; drop or impute them")
            if not np.all(col == np.round(col)):
                raise ValueError(f"{bad} looks continuous; the GANs model discrete columns, so bin it first "
                                 "(e.g. numpy.digitize)")
        table[:, j] = col
    return table, columns, is_frame


def binary_codes(values, name: str, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """(0/1 codes, the two sorted values) of a binary vector of length n; the larger value is coded 1."""
    v = np.asarray(values).ravel()
    if v.shape[0] != n:
        raise ValueError(f"{name} has {v.shape[0]} entries, X has {n} rows")
    classes = np.unique(v)
    if classes.size != 2:
        raise ValueError(f"{name} must take exactly two values, got {classes.size}: {classes[:5].tolist()}")
    return (v == classes[1]).astype(np.int64), classes


# The training settings every GAN here has, as a scikit-learn-style constraints table (checked by
# _validation.validate_params at fit; the estimators add their own entries).
TRAINING_CONSTRAINTS = {
    "lambda_fair": [NON_NEGATIVE],
    "epochs": [POSITIVE_INT],
    "batch_size": [POSITIVE_INT],
    "noise_dim": [POSITIVE_INT],
    "hidden": [POSITIVE_INT],
    "d_steps": [POSITIVE_INT],
    "learning_rate": [POSITIVE],
    "n_threads": [POSITIVE_INT],
    "random_state": ["random_state"],
}


def torch_generator(torch, random_state):
    """A seeded torch.Generator drawn from ``random_state`` (int | numpy Generator | None)."""
    rng = check_random_state(random_state)
    gen = torch.Generator()
    gen.manual_seed(int(rng.integers(0, 2**62)))
    return gen, rng


class seeded_init:
    """Context manager: torch's global RNG (which nn.Linear uses to initialise weights) seeded from ``gen`` inside,
    and restored after, so that fits are reproducible and leave the caller's torch RNG state untouched."""

    def __init__(self, torch, gen):
        self.fork = torch.random.fork_rng(devices=[])
        self.torch, self.seed = torch, int(torch.randint(0, 2**62, (1,), generator=gen))

    def __enter__(self):
        self.fork.__enter__()
        self.torch.manual_seed(self.seed)

    def __exit__(self, *exc):
        return self.fork.__exit__(*exc)


class threads:
    """Context manager: torch.set_num_threads(n) inside, the previous value restored after."""

    def __init__(self, torch, n: int):
        self.torch, self.n, self.old = torch, int(n), None

    def __enter__(self):
        self.old = self.torch.get_num_threads()
        self.torch.set_num_threads(self.n)

    def __exit__(self, *exc):
        self.torch.set_num_threads(self.old)


def gumbel_one_hot(torch, logits, groups, gen, tau: float = 0.5, noise=None):
    """Straight-through Gumbel-softmax per one-hot group: a hard one-hot forward, the soft gradient backward.

    ``noise`` (Gumbel draws, same shape as logits) may be passed so that two passes share it (CFGAN's G¹/G²).
    Returns (hard one-hots, soft probabilities).
    """
    if noise is None:
        u = torch.rand(logits.shape, generator=gen).clamp_(1e-10, 1 - 1e-7)
        noise = -torch.log(-torch.log(u))
    hard, soft = [], []
    for a, b in groups:
        y = torch.softmax((logits[:, a:b] + noise[:, a:b]) / tau, dim=1)
        index = y.argmax(dim=1, keepdim=True)
        h = torch.zeros_like(y).scatter_(1, index, 1.0)
        hard.append(h - y.detach() + y)
        soft.append(torch.softmax(logits[:, a:b], dim=1))
    return torch.cat(hard, dim=1), torch.cat(soft, dim=1)


def group_cross_entropy(torch, logits, target, groups):
    """Σ over one-hot groups of the cross-entropy of softmax(logits) against the one-hot target, mean over rows."""
    loss = 0.0
    for a, b in groups:
        logp = torch.log_softmax(logits[:, a:b], dim=1)
        loss = loss - (target[:, a:b] * logp).sum(dim=1).mean()
    return loss


def mlp(torch, sizes: Sequence[int], *, out: int, batch_norm: bool = False):
    """Linear-(BatchNorm)-LeakyReLU layers of the given widths, then a linear output of width ``out``."""
    nn = torch.nn
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers.append(nn.Linear(a, b))
        if batch_norm:
            layers.append(nn.BatchNorm1d(b))
        layers.append(nn.LeakyReLU(0.2))
    layers.append(nn.Linear(sizes[-1], out))
    return nn.Sequential(*layers)


def with_batch_mean(torch, x):
    """medGAN's minibatch averaging: each row gets the batch mean appended, so D can see mode collapse."""
    return torch.cat([x, x.mean(dim=0, keepdim=True).expand_as(x)], dim=1)


def bce_logits(torch, logits, target):
    return torch.nn.functional.binary_cross_entropy_with_logits(logits.squeeze(1), target)
