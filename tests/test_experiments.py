"""The experiments harness: marker sections, the registry, one ``run`` for every reproduction, the frontier adapter."""

import os
import sys
import types

import pytest

from dpfair_native import experiments
from dpfair_native.experiments import _harness

BEGIN, END = "<!-- dpfair:begin demo -->", "<!-- dpfair:end demo -->"


def test_write_section_appends_then_replaces_and_keeps_every_other_byte(tmp_path):
    path = tmp_path / "RESULTS.md"
    before = "# results\n\n## Other\n\ntrailing  spaces  \r\nand no final newline"
    path.write_bytes(before.encode())
    experiments.write_section("demo", "## Demo\n\nfirst\n", path)
    first = path.read_bytes().decode()
    assert first.startswith(before.rstrip("\n")) and first.endswith(f"{BEGIN}\n## Demo\n\nfirst\n{END}\n")
    path.write_bytes((first + "\n## After\n\nkept\n").encode())
    experiments.write_section("demo", "## Demo\n\nsecond", path)
    second = path.read_bytes().decode()
    assert second.count(BEGIN) == 1 and "first" not in second and "second" in second
    assert second.replace("second", "first") == first + "\n## After\n\nkept\n"  # only the block changed


def test_write_section_refuses_a_file_with_half_a_block(tmp_path):
    path = tmp_path / "RESULTS.md"
    path.write_text(f"# results\n{BEGIN}\nno end marker\n")
    with pytest.raises(ValueError, match="only one of the markers"):
        experiments.write_section("demo", "x", path)
    assert path.read_text() == f"# results\n{BEGIN}\nno end marker\n"


def test_results_md_holds_one_marked_block_per_registered_reproduction():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "bench" / "RESULTS.md").read_text()
    for name in experiments.REGISTRY:
        begin, end = f"<!-- dpfair:begin {name} -->", f"<!-- dpfair:end {name} -->"
        assert text.count(begin) == 1 and text.count(end) == 1 and text.index(begin) < text.index(end), name
    for old in ("dpsgd-reproduction", "dpne-reproduction", "privpc-reproduction"):
        assert old not in text


def test_machine_is_read_from_the_machine():
    text = experiments.machine()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert f"{usable} " in text and "cores" in text and "2 cores (shared" not in text
    if hasattr(os, "getloadavg"):
        assert "load average" in text


@pytest.fixture
def fake_reproduction(monkeypatch):
    """A module registered the way the lead registers fairgan/cfgan/privpc_adult: one line, report() -> str."""
    calls = []
    module = types.ModuleType("dpfair_native.experiments._fake")

    def report(runs=None):
        calls.append(runs)
        return "## Fake reproduction\n\n| a | b |\n|---|---|\n| 1 | 2 |"

    module.report = report
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(experiments.REGISTRY, "fake", "._fake")
    return calls


def test_a_module_returning_a_string_runs_and_is_written_with_a_stamp(fake_reproduction, tmp_path, capsys):
    path = tmp_path / "RESULTS.md"
    assert experiments.run("fake", runs=2, results_path=path) == 0
    assert fake_reproduction == [2]
    text = path.read_text()
    assert "<!-- dpfair:begin fake -->\n## Fake reproduction\n\nMachine: " in text
    assert "Command: `python -m dpfair_native reproduce fake --runs 2`" in text and "| 1 | 2 |" in text
    assert "## Fake reproduction" in capsys.readouterr().out
    assert experiments.run("fake", write=False) == 0 and fake_reproduction == [2, None]


def test_plot_is_refused_before_any_work_where_no_curve_is_declared(fake_reproduction, tmp_path):
    with pytest.raises(ValueError, match="--plot is available for the reproductions .*'functional'"):
        experiments.run("fake", write=False, plot=str(tmp_path / "x.png"))
    assert fake_reproduction == []
    with pytest.raises(ValueError, match="no reproduction named 'nope'"):
        experiments.run("nope")
    with pytest.raises(ValueError, match="runs must be >= 1"):
        experiments.run("fake", runs=0)


# single-setting tables of generated-data metrics (one GAN per row): no ε or bound sweep to draw a curve over
WITHOUT_PLOT = {"fairgan", "cfgan"}


def test_every_registered_reproduction_exposes_report_and_a_plot_spec():
    for name in experiments.REGISTRY:
        report, spec = _harness._resolve(name)
        assert callable(report), name
        if name in WITHOUT_PLOT:
            assert spec is None, name
        else:
            assert spec is not None and spec.kind in ("frontier", "curves"), name


def test_frontier_report_goes_between_markers_with_its_plot_points(monkeypatch, tmp_path):
    from dpfair_native.experiments import frontier

    cells = {("ConstrainedDPSGD demographic_parity", 0.01, 1.0): {"m": [[0.8, 0.85, 0.02, 0.05]], "t": [1.0],
                                                                  "eps_spent": [1.0]},
             ("DPSGDFClassifier", None, float("inf")): {"m": [[0.84, 0.9, 0.18, 0.12]], "t": [1.0],
                                                         "eps_spent": [float("inf")]},
             ("FairDPClassifier (M = 2)", None, 0.5): {"error": "no non-private mode"}}
    monkeypatch.setattr(frontier, "evaluate", lambda runs: cells)
    monkeypatch.setattr(frontier, "exponentiated_gradient", lambda: None)
    path = tmp_path / "RESULTS.md"
    assert experiments.run("frontier", runs=1, results_path=path) == 0
    text = path.read_text()
    assert text.count("<!-- dpfair:begin frontier -->") == 1 and frontier.HEADER in text
    points = frontier.report(runs=1).rows
    assert [p["name"] for p in points] == ["ConstrainedDPSGD demographic_parity, bound 0.01", "DPSGDFClassifier"]
    assert points[1]["epsilon"] == float("inf") and points[0]["demographic_parity_difference"] == 0.02


def test_plot_is_drawn_from_the_rows_of_the_report(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    rows = [{"name": "A", "epsilon": e, "accuracy": 0.7 + 0.01 * i, "demographic_parity_difference": 0.1 / (i + 1)}
            for i, e in enumerate((0.5, 1.0, float("inf")))]

    def report(runs=None):
        return experiments.Report("## Fake\n\n| x |", rows)

    report.PLOT = experiments.PlotSpec("frontier", {"title": "fake"})
    monkeypatch.setitem(experiments.REGISTRY, "fake", report)
    out = tmp_path / "fake.png"
    assert experiments.run("fake", write=False, plot=str(out)) == 0
    assert out.stat().st_size > 5_000
