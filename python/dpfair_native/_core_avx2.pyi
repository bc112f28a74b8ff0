"""Type stubs of the AVX2 + FMA build of the native extension: the same kernels as ``_core``."""

import dpfair_native._core as _core_types

from ._core import chacha20_block as chacha20_block
from ._core import clip_group_gradients as clip_group_gradients
from ._core import clip_group_gradients_csr as clip_group_gradients_csr
from ._core import constrained_sgd_epochs as constrained_sgd_epochs
from ._core import constrained_sgd_epochs_csr as constrained_sgd_epochs_csr
from ._core import constrained_sgd_epochs_packed as constrained_sgd_epochs_packed
from ._core import contingency_g2 as contingency_g2
from ._core import csr_in_domain as csr_in_domain
from ._core import discrete_gaussian_noise as discrete_gaussian_noise
from ._core import discrete_laplace_noise as discrete_laplace_noise
from ._core import dpsgd_epochs as dpsgd_epochs
from ._core import dpsgd_epochs_csr as dpsgd_epochs_csr
from ._core import dpsgd_epochs_packed as dpsgd_epochs_packed
from ._core import logistic_newton as logistic_newton
from ._core import logistic_newton_csr as logistic_newton_csr
from ._core import minimize_quadratic as minimize_quadratic
from ._core import normal_cdf as normal_cdf
from ._core import pld_connect_the_dots as pld_connect_the_dots
from ._core import pld_epsilon_for_delta as pld_epsilon_for_delta
from ._core import poly2_coefficients as poly2_coefficients
from ._core import poly2_coefficients_csr as poly2_coefficients_csr
from ._core import secure_poisson_slots as secure_poisson_slots
from ._core import secure_row_units as secure_row_units
from ._core import values_within as values_within

isa: str

# The bound types (module-local copies of _core's: the same names, fields and members).

ClipRule = _core_types.ClipRule
NoiseRule = _core_types.NoiseRule
PackedCsr = _core_types.PackedCsr
QuadraticSolution = _core_types.QuadraticSolution
