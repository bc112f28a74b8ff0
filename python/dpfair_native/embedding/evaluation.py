"""Evaluation of vertex embeddings with the thesis' protocols (ch. 5 §5.5): vertex classification and link
prediction, each with a linear classifier trained on 10% of the examples.

Both use ``dpfair_native.models.LogisticRegression`` on column-standardised features (mean and scale from the
training part only). The thesis uses an SVM for classification; logistic regression one-vs-rest is our substitute.
Link prediction follows node2vec's protocol: a share of the edges is held out (the embedding is fit on the rest),
as many non-edges are drawn as negatives, and each pair (i, j) is represented by the Hadamard product w_i ∘ w_j.
"""

from __future__ import annotations

import numpy as np

from .. import metrics
from .._validation import check_random_state
from .graph import check_adjacency, is_sparse

__all__ = ["link_prediction", "link_prediction_split", "vertex_classification"]


def _check_fraction(value, name):
    v = float(value)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return v


def _check_embedding(embedding, n=None):
    W = np.asarray(embedding, dtype=np.float64)
    if W.ndim != 2 or (n is not None and W.shape[0] != n):
        raise ValueError(f"embedding must be a 2-D array with one row per vertex{'' if n is None else f' ({n})'}, "
                         f"got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise ValueError("embedding contains NaN or inf")
    return W


def _standardise(train, *others):
    mu = train.mean(axis=0)
    sd = train.std(axis=0)
    sd[sd == 0] = 1.0
    return [(a - mu) / sd for a in (train,) + others]


def _f1_scores(y_true, y_pred, classes):
    f1 = []
    tp_all = fp_all = fn_all = 0
    for c in classes:
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        tp_all, fp_all, fn_all = tp_all + tp, fp_all + fp, fn_all + fn
        f1.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn > 0 else 0.0)
    micro = 2 * tp_all / (2 * tp_all + fp_all + fn_all) if tp_all + fp_all + fn_all > 0 else 0.0
    return float(micro), float(np.mean(f1))


def vertex_classification(embedding, labels, *, train_fraction=0.1, alpha=1.0, random_state=None,
                          backend="native"):
    """Train one-vs-rest logistic regressions on a stratified ``train_fraction`` of the vertices (at least one per
    class) and score the rest.

    Returns
    -------
    dict with ``accuracy``, ``micro_f1`` (equal to accuracy for single-label data) and ``macro_f1``.
    """
    from ..models import LogisticRegression

    y = np.asarray(labels).ravel()
    W = _check_embedding(embedding, y.shape[0])
    frac = _check_fraction(train_fraction, "train_fraction")
    rng = check_random_state(random_state)
    classes = np.unique(y)
    if classes.size < 2:
        raise ValueError("labels must contain at least two classes")
    train = np.zeros(y.shape[0], dtype=bool)
    for c in classes:
        idx = np.flatnonzero(y == c)
        if idx.size < 2:
            raise ValueError(f"class {c!r} has fewer than 2 vertices: cannot both train and test on it")
        train[rng.choice(idx, size=min(idx.size - 1, max(1, round(frac * idx.size))), replace=False)] = True
    Xtr, Xte = _standardise(W[train], W[~train])
    scores = np.column_stack([
        LogisticRegression(alpha=alpha, backend=backend).fit(Xtr, (y[train] == c).astype(np.int64))
        .decision_function(Xte)
        for c in classes
    ])
    pred = classes[np.argmax(scores, axis=1)]
    micro, macro = _f1_scores(y[~train], pred, classes)
    return {"accuracy": float(np.mean(pred == y[~train])), "micro_f1": micro, "macro_f1": macro}


def link_prediction_split(adjacency, *, test_fraction=0.5, random_state=None):
    """Hold out edges for link prediction.

    Removes a random ``test_fraction`` of the edges (connectivity is not enforced) and draws as many vertex pairs
    that are not edges of the full graph.

    Returns
    -------
    train_adjacency : same kind as ``adjacency`` (dense or CSR), the graph without the held-out edges
    pairs : ndarray (m, 2) of int, held-out edges then non-edges (i < j)
    y : ndarray (m,), 1 for a held-out edge, 0 for a non-edge
    """
    a = check_adjacency(adjacency)
    n = a.shape[0]
    frac = _check_fraction(test_fraction, "test_fraction")
    rng = check_random_state(random_state)
    if is_sparse(a):
        import scipy.sparse as sp

        upper = sp.triu(a, k=1).tocoo()
        r, s = upper.row.astype(np.int64), upper.col.astype(np.int64)
    else:
        r, s = np.nonzero(np.triu(a, k=1))
    m = r.size
    n_test = round(frac * m)
    if n_test < 1 or n_test >= m:
        raise ValueError(f"test_fraction={frac} of {m} edges leaves no test or no training edge")
    n_pairs = n * (n - 1) // 2
    if n_pairs - m < n_test:
        raise ValueError("the graph is too dense to draw as many non-edges as held-out edges")
    held = rng.choice(m, size=n_test, replace=False)
    keep = np.ones(m, dtype=bool)
    keep[held] = False
    edge_keys = np.sort(r * n + s)
    neg = np.zeros(0, dtype=np.int64)
    while neg.size < n_test:
        i = rng.integers(0, n, size=2 * n_test)
        j = rng.integers(0, n, size=2 * n_test)
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        key = lo * n + hi
        ok = (lo != hi) & ~np.isin(key, edge_keys)
        neg = np.unique(np.concatenate([neg, key[ok]]))
    neg = rng.permutation(neg)[:n_test]
    pairs = np.concatenate([np.column_stack([r[held], s[held]]), np.column_stack([neg // n, neg % n])])
    y = np.concatenate([np.ones(n_test, np.int64), np.zeros(n_test, np.int64)])
    if is_sparse(a):
        import scipy.sparse as sp

        rk, sk = r[keep], s[keep]
        train = sp.coo_matrix((np.ones(2 * rk.size), (np.concatenate([rk, sk]), np.concatenate([sk, rk]))),
                              shape=(n, n)).tocsr()
    else:
        train = a.copy()
        train[r[held], s[held]] = 0.0
        train[s[held], r[held]] = 0.0
    return train, pairs, y


def link_prediction(embedding, pairs, y, *, train_fraction=0.1, alpha=1.0, random_state=None, backend="native"):
    """Logistic regression on Hadamard edge features w_i ∘ w_j, trained on a stratified ``train_fraction`` of the
    pairs and scored on the rest.

    Returns
    -------
    dict with ``accuracy`` (the thesis' figure) and ``auc`` (ROC-AUC of the decision scores).
    """
    from ..models import LogisticRegression

    pairs = np.asarray(pairs)
    y = np.asarray(y).ravel()
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] != y.shape[0]:
        raise ValueError(f"pairs must be (m, 2) with one label per pair; got {pairs.shape} and {y.shape}")
    W = _check_embedding(embedding)
    if pairs.size and (pairs.min() < 0 or pairs.max() >= W.shape[0]):
        raise ValueError("pairs reference vertices outside the embedding")
    frac = _check_fraction(train_fraction, "train_fraction")
    rng = check_random_state(random_state)
    X = W[pairs[:, 0]] * W[pairs[:, 1]]
    train = np.zeros(y.shape[0], dtype=bool)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        if idx.size < 2:
            raise ValueError("need at least two positive and two negative pairs")
        train[rng.choice(idx, size=min(idx.size - 1, max(1, round(frac * idx.size))), replace=False)] = True
    Xtr, Xte = _standardise(X[train], X[~train])
    model = LogisticRegression(alpha=alpha, backend=backend).fit(Xtr, y[train])
    score = model.decision_function(Xte)
    return {"accuracy": float(np.mean((score > 0) == (y[~train] == 1))),
            "auc": float(metrics.roc_auc(y[~train], score))}
