"""The command line: the main job and the three reproductions run end to end (one seed, print only)."""

import re

import pytest

from dpfair_native import experiments
from dpfair_native.__main__ import main


@pytest.mark.parametrize("argv", [[], ["demo", "--seed", "0"]], ids=["os-entropy", "seeded"])
def test_main_job_prints_models_privacy_and_timings(argv, capsys):
    """The README's main job. Its default draws the noise from OS entropy, so the model's numbers vary: over 400
    seeds FairFM's accuracy stayed above 0.80 but its risk difference passed 0.05 in 0.75 % of them (max 0.053;
    the non-private model's is 0.18). The numbers are checked on the seeded run; the default run is checked for
    everything else, and for a fair model clearly fairer than the non-private one."""
    assert main(argv) == 0
    out = capsys.readouterr().out
    rows = {m.group(1).strip(): m for m in re.finditer(
        r"^  (\S.*?)\s+accuracy (\d\.\d{4})  ROC-AUC (\d\.\d{4})  risk difference (\d\.\d{4})  privacy (.*)$",
        out, re.M)}
    assert "LogisticRegression (non-private)" in rows
    fair = rows["FairFunctionalMechanismLR eps=1, delta=1e-5"]
    assert fair.group(5) == "(epsilon=1, delta=1.0e-05, replace-one)"
    assert rows["DPSGDClassifier eps=1, delta=1e-5 (not fair)"].group(5).endswith(", add-or-remove-one)")
    # the DP + fair model is useful (beats the constant model) and fairer than the non-private one
    assert float(fair.group(2)) > 0.78 and float(fair.group(4)) < (0.05 if argv else 0.1)
    assert float(rows["LogisticRegression (non-private)"].group(4)) > 0.15
    assert "DPSGDClassifier eps=1, delta=1e-5 (not fair)" in rows
    assert "Each privacy figure covers its own model" in out  # the four private models compose if all released
    for kernel in ("poly2_coefficients", "minimize_quadratic", "clip_group_gradients"):
        assert re.search(rf"^  {kernel}.* native +[\d.]+ ms +numpy +[\d.]+ ms", out, re.M), kernel


@pytest.mark.parametrize("which", ["functional", "dpsgd", "fairdp"])
def test_reproductions_run_print_only(which, capsys):
    assert main(["reproduce", which, "--runs", "1", "--no-write"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n|") > 5, out[:2000]  # markdown tables were printed


def test_results_path_refuses_outside_a_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fake = tmp_path / "site-packages" / "dpfair_native" / "experiments" / "__init__.py"
    monkeypatch.setattr(experiments, "__file__", str(fake))
    with pytest.raises(ValueError, match="pass --no-write"):
        experiments.results_path()


def test_readme_usage_example_runs(capsys, tmp_path, monkeypatch):
    """The README's Python example runs as written (docs that match the code): raw frame -> model -> plot."""
    from pathlib import Path

    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert "MinMaxScaler" not in code and "load_adult(as_frame=True)" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    privacy, dp = capsys.readouterr().out.split("\n")[:2]
    assert privacy == "PrivacySpent(epsilon=1.0, delta=1e-05, method='basic', relation='replace_one')"
    # The README draws its noise from OS entropy, so this gap is random. Over 3,000 seeded draws of models[1]
    # (FairFunctionalMechanismLR, ε = 1) the gap's 99.9 % quantile was 0.053 and its maximum 0.067 (0.4 % of
    # draws were >= 0.05, which made a 0.05 bound fail CI); without the fairness constraint the 1 % quantile is
    # 0.139 (FunctionalMechanismLR, ε = 1) and plain LR's gap 0.182, so 0.10 still catches a lost constraint.
    assert 0.0 <= float(dp) < 0.10
    assert (tmp_path / "frontier.png").stat().st_size > 10_000


def test_reproduce_dispatches_every_registered_name_with_plot_and_no_write(monkeypatch, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rows = [{"name": "A", "epsilon": e, "accuracy": 0.6 + e / 10, "demographic_parity_difference": e / 20}
            for e in (0.5, 1.0, 2.0)]

    def report(runs=None):
        return experiments.Report(f"## Fake ({runs} runs)\n\n| a |\n|---|\n| 1 |", rows)

    report.PLOT = experiments.PlotSpec("frontier", {"title": "fake"})
    monkeypatch.setitem(experiments.REGISTRY, "fake", report)
    out = tmp_path / "fake.png"
    assert main(["reproduce", "fake", "--runs", "3", "--no-write", "--plot", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "## Fake (3 runs)" in printed and "--runs 3`" in printed and "wrote" not in printed
    assert out.stat().st_size > 5_000
    with pytest.raises(SystemExit):
        main(["reproduce", "no-such-reproduction"])


@pytest.mark.parametrize("argv", [["demo", "--seed", "-1"], ["demo", "--seed", "x"], ["reproduce", "frontier",
                                                                                       "--runs", "0"]])
def test_bad_arguments_are_usage_errors_not_tracebacks(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "error: argument" in capsys.readouterr().err
