"""Estimators (scikit-learn API): fit(X, y, *, sensitive_features) -> self."""
