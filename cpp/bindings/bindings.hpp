// Declarations of the per-area binding functions; module.cpp calls each once.
#pragma once

#include <pybind11/pybind11.h>

void bind_poly2(pybind11::module_& m);
void bind_quadratic(pybind11::module_& m);
void bind_clipgrad(pybind11::module_& m);
void bind_sgd(pybind11::module_& m);
void bind_logistic(pybind11::module_& m);
void bind_secure_noise(pybind11::module_& m);
void bind_contingency(pybind11::module_& m);
void bind_constrained_sgd(pybind11::module_& m);
void bind_domain(pybind11::module_& m);
void bind_special(pybind11::module_& m);
void bind_pld(pybind11::module_& m);
void bind_validation(pybind11::module_& m);
