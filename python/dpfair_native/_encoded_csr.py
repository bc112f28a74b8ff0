"""The sparse output of :class:`~dpfair_native.preprocessing.DomainEncoder` (``sparse_output=True``): a CSR matrix
that carries its declared domain through row indexing, ``copy`` and pickling, as the dense
:class:`~dpfair_native.preprocessing.EncodedArray` does, so that scikit-learn's cross-validation splits and
``datasets.train_test_split`` hand the declared domain to the estimator. Imports scipy (an optional dependency), so
it is imported only when sparse output is asked for."""

from __future__ import annotations

from typing import Optional

from scipy import sparse

from .domain import FeatureDomain
from .preprocessing import indexed_domain


class EncodedCSR(sparse.csr_matrix):
    """A ``csr_matrix`` with ``.domain``: kept by row selections, restricted by column selections, dropped (None)
    by anything else — arithmetic (in place too), format conversions, SciPy functions — that may move or rescale
    columns. Writing into ``.data`` directly is not seen: the domain then describes the values as encoded."""

    domain: Optional[FeatureDomain] = None  # what scipy's internal constructors of this class get

    def __getitem__(self, key):
        out = super().__getitem__(key)
        if self.domain is None or not sparse.issparse(out):
            return out
        domain = indexed_domain(self.domain, self.shape, key, out.shape)
        if domain is None:
            return out
        out = out if isinstance(out, EncodedCSR) else EncodedCSR(out.tocsr())
        out.domain = domain
        return out

    def copy(self):
        out = super().copy()
        out.domain = self.domain
        return out

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()  # a FeatureDomain is immutable: shared

    def __imul__(self, other):  # in place: the values change, so the domain no longer describes them
        out = super().__imul__(other)
        self.domain = None
        return out

    def __itruediv__(self, other):
        out = super().__itruediv__(other)
        self.domain = None
        return out
