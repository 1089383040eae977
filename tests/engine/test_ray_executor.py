"""The Ray executor on a local Ray cluster started (and stopped) by these tests.

Slow: the cluster takes about ten seconds to start. Checked: the default suite on
two Ray workers writes the local executor's sessions.jsonl; a worker SIGKILLed
mid-run loses no session and repeats none; with a suite limit of R requests per
minute, two workers together stay within it at the fake provider.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import simlab
from simlab.core import SessionKey
from simlab.engine import execute, plan_new_run
from simlab.spec import RayExecutorSpec
from simlab.testing import FakeProvider, FakeProviderConfig, FakeRequest, roleplay

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "SIMLAB_RAY_TEST_KEY"
TWO_WORKERS = RayExecutorSpec(workers=2)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A two-CPU Ray cluster for this module; afterwards none of its processes is left."""
    ray = pytest.importorskip("ray")
    os.environ[KEY_ENV] = "sk-test-not-a-key"  # workers inherit the cluster's environment
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    session = Path(ray._private.worker._global_node.get_session_dir_path()).name
    try:
        yield ray
    finally:
        ray.shutdown()
        os.environ.pop(KEY_ENV, None)
        deadline = time.monotonic() + 30
        while _processes_of(session) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _processes_of(session) == [], "Ray processes left running"


def _processes_of(session: str) -> list[int]:
    """Processes whose command line names this Ray session (raylet, GCS, workers)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if session.encode() in cmdline:
            found.append(int(proc.name))
    return found


def lines(run_dir: Path) -> list[dict[str, Any]]:
    text = (run_dir / "sessions.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def by_key(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each record by key, without where and how long it ran."""
    found = {}
    for r in records:
        r = {**r, "meta": {k: v for k, v in r["meta"].items() if k != "worker"}}
        r.pop("duration_s")
        r.pop("agent_turn_s")
        found[json.dumps(r["key"], sort_keys=True)] = r
    return found


def test_the_default_suite_on_two_ray_workers_writes_the_local_sessions(
    cluster: Any, tmp_path: Path
) -> None:
    suite = ROOT / "simlab.yaml"
    local = simlab.run(suite, out=tmp_path / "local", progress=False)
    on_ray = simlab.run(suite, out=tmp_path / "ray", progress=False, executor=TWO_WORKERS)
    here, there = lines(local.run_dir), lines(on_ray.run_dir)
    assert len(here) == len(there) == 1536  # (12 x 6 travel + 4 x 6 bank) x 2 modes x 8 reps
    assert len(by_key(there)) == len(there)  # no key twice
    assert by_key(there) == by_key(here)
    assert len({r["meta"]["worker"] for r in there}) == 2
    assert on_ray.summary.overall.model_dump() == local.summary.overall.model_dump()


def test_slim_records_from_ray_workers_are_the_local_ones(cluster: Any, tmp_path: Path) -> None:
    # the command line's way: the driver keeps slim records, parsing only the slim JSON a
    # worker sends and writing the whole line as it came
    text = (ROOT / "simlab.yaml").read_text(encoding="utf-8").replace("reps: 8", "reps: 2")
    for name in ("personas", "goals", "domains", "perturbations"):
        (tmp_path / name).symlink_to(ROOT / name)

    def slim_run(name: str, executor: str) -> tuple[list[Any], Path]:
        suite = tmp_path / f"{name}.yaml"
        suite.write_text(f"{text}\nexecutor: {executor}\n", encoding="utf-8")
        plan = plan_new_run(suite, tmp_path / name)
        kept = anyio.run(lambda: execute(plan, slim=True))
        return [_timeless(r) for r in kept], plan.run_dir

    here, local_dir = slim_run("local", "local")
    there, ray_dir = slim_run("ray", "{kind: ray, workers: 2}")
    assert len(here) == 384 and all(not r["transcript"]["turns"] for r in there)
    assert there == here
    assert by_key(lines(ray_dir)) == by_key(lines(local_dir))


def _timeless(record: Any) -> dict[str, Any]:
    found: dict[str, Any] = record.model_dump(mode="json", exclude={"duration_s", "agent_turn_s"})
    return found


SLOW_AGENT = """
import asyncio
import os
from pathlib import Path

STARTS = Path(__file__).with_name("starts.log")


async def reply(messages, ctx):
    if ctx.turn == 1:  # one line per session started: which, and in which worker
        with STARTS.open("a") as f:
            f.write(f"{ctx.session_id} {os.getpid()}\\n")
    await asyncio.sleep(0.03)
    return "Sorry, could you say that again?"
"""


def test_a_worker_sigkilled_mid_run_loses_no_session_and_repeats_none(
    cluster: Any, tmp_path: Path
) -> None:
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT, encoding="utf-8")
    suite = {
        "seed": 7,
        "reps": 1,
        "target": "slow_agent:reply",
        "concurrency": 4,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    out = tmp_path / "out"
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = simlab.run(path, out=out, progress=False, executor=TWO_WORKERS)
        except BaseException as e:  # handed to the test's thread
            outcome["error"] = e

    runner = threading.Thread(target=run)
    runner.start()
    killed, in_flight = _kill_a_worker_mid_session(out, tmp_path / "starts.log", sessions=10)
    runner.join(timeout=240)
    assert not runner.is_alive(), "the run did not end"
    assert "error" not in outcome, outcome.get("error")
    run_dir = outcome["result"].run_dir
    written = lines(run_dir)
    keys = [json.dumps(r["key"], sort_keys=True) for r in written]
    assert len(keys) == 144 and len(set(keys)) == 144  # 18 x 4 x 2 x 1, each once
    assert all(r["status"] == "ok" for r in written), [r["error"] for r in written]
    assert not _alive(killed)  # the worker really died
    starts = _starts(tmp_path / "starts.log")
    assert len({sid for sid, _ in starts}) == 144
    again = [sid for sid in in_flight if sum(1 for s, _ in starts if s == sid) > 1]
    assert again, f"none of the killed worker's sessions in flight ran again: {in_flight}"
    assert all(not r["meta"]["worker"].endswith(f":{killed}") for r in written if _id(r) in again)


def _id(record: dict[str, Any]) -> str:
    return SessionKey.model_validate(record["key"]).id


def _starts(log: Path) -> list[tuple[str, int]]:
    """(session id, worker pid) of every session start the agent logged."""
    if not log.exists():
        return []
    pairs = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    return [(p[0], int(p[1])) for p in pairs if len(p) == 2]


def _kill_a_worker_mid_session(out: Path, log: Path, sessions: int) -> tuple[int, list[str]]:
    """Once ``sessions`` are written, SIGKILL the worker with the most sessions started
    and not written; that pid and those sessions."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = list(out.glob("*/sessions.jsonl"))
        lines = found[0].read_text().splitlines() if found else []
        written = {_id(json.loads(line)) for line in lines if line.endswith("}")}
        if len(written) >= sessions:
            in_flight: dict[int, list[str]] = {}
            for sid, pid in _starts(log):
                if sid not in written:
                    in_flight.setdefault(pid, []).append(sid)
            if in_flight:
                pid = max(in_flight, key=lambda p: len(in_flight[p]))
                os.kill(pid, signal.SIGKILL)
                return pid, in_flight[pid]
        time.sleep(0.02)
    raise AssertionError(f"no {sessions} sessions written in time")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie its parent has not reaped yet is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


RPM = 24


def test_two_workers_together_keep_the_suites_requests_per_minute(
    cluster: Any, tmp_path: Path
) -> None:
    arrivals: list[float] = []

    def timed(request: FakeRequest) -> str:
        arrivals.append(time.monotonic())
        return roleplay(request)

    with FakeProvider(FakeProviderConfig(), timed).serve_in_thread() as url:
        llm = {"backend": "anthropic", "base_url": url, "api_key_env": KEY_ENV, "rpm": RPM}
        suite = {
            "seed": 5,
            "personas": ["terse_en"],
            "goals": ["one_way", "refund"],
            "reps": 2,
            "simulator": {"kind": "llm", "llm": llm},
            "concurrency": 8,
            "persona_dirs": [str(ROOT / "personas")],
            "goal_dirs": [str(ROOT / "goals")],
        }
        path = tmp_path / "suite.yaml"
        path.write_text(json.dumps(suite), encoding="utf-8")
        result = simlab.run(path, out=tmp_path / "out", progress=False, executor=TWO_WORKERS)
        with urllib.request.urlopen(f"{url}/stats") as response:
            stats = json.load(response)
    assert all(r.status == "ok" for r in result.records), [r.error for r in result.records]
    assert len({r.meta["worker"] for r in result.records}) == 2  # both workers asked
    n = stats["requests"]
    assert n == len(arrivals) > RPM  # more than one minute's allowance was needed
    # The provider's own rule, a bucket of RPM refilled at RPM per minute: over any
    # stretch of t seconds, at most RPM + RPM * t / 60 requests (one more for the
    # jitter between a permit and its request's arrival). Two workers each with
    # their own bucket would send 2 * RPM at once.
    arrivals.sort()
    worst = max(
        (j - i + 1) - (RPM + RPM * (arrivals[j] - arrivals[i]) / 60)
        for i in range(n)
        for j in range(i, n)
    )
    assert worst <= 1, f"{worst:.1f} requests over the limit"
    assert arrivals[-1] - arrivals[0] >= 0.8 * (n - RPM) * 60 / RPM


DRIVER_ONLY_AGENT = """
import os

if not os.environ.get("SIMLAB_RAY_TEST_DRIVER"):
    raise RuntimeError("this machine has no agent")


def reply(messages, ctx):
    return "ok"
"""


def test_a_worker_that_cannot_build_the_roles_ends_the_run_with_one_message(
    cluster: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from simlab.cli import main

    (tmp_path / "driver_only.py").write_text(DRIVER_ONLY_AGENT, encoding="utf-8")
    suite = {
        "reps": 1,
        "target": "driver_only:reply",
        "personas": ["terse_en"],
        "goals": ["refund"],
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    # set after the cluster started: its workers do not have it
    monkeypatch.setenv("SIMLAB_RAY_TEST_DRIVER", "1")
    out = tmp_path / "out"
    code = main(["run", str(path), "--executor", "ray", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert (
        "suite: executor: ray: a worker failed: RuntimeError: this machine has no agent; "
        f"every machine needs simlab, the suite's folder at {tmp_path.resolve()}"
    ) in err
    assert "Traceback" not in err
    assert not list(out.iterdir())


def test_a_worker_sigkilled_twice_loses_repeats_and_fails_no_session(
    cluster: Any, tmp_path: Path
) -> None:
    # the second kill comes while the first worker may still be restarting: calls to a
    # restarting actor spend no session's tries, and closing a dead one ends no run
    (tmp_path / "slow_agent.py").write_text(SLOW_AGENT, encoding="utf-8")
    suite = {
        "seed": 7,
        "reps": 2,
        "target": "slow_agent:reply",
        "concurrency": 4,
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    out = tmp_path / "out"
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = simlab.run(path, out=out, progress=False, executor=TWO_WORKERS)
        except BaseException as e:  # handed to the test's thread
            outcome["error"] = e

    runner = threading.Thread(target=run)
    runner.start()
    first, _ = _kill_a_worker_mid_session(out, tmp_path / "starts.log", sessions=40)
    second, _ = _kill_a_worker_mid_session(out, tmp_path / "starts.log", sessions=120)
    runner.join(timeout=400)
    assert not runner.is_alive(), "the run did not end"
    assert "error" not in outcome, outcome.get("error")
    result = outcome["result"]
    written = lines(result.run_dir)
    keys = [json.dumps(r["key"], sort_keys=True) for r in written]
    assert len(keys) == 288 and len(set(keys)) == 288  # 18 x 4 x 2 x 2, each once
    assert [r["error"] for r in written if r["status"] != "ok"] == []
    assert not _alive(first) and not _alive(second)
    assert result.paths.summary.is_file() and result.paths.report_md.is_file()
    local = simlab.run(path, out=tmp_path / "local", progress=False)
    assert by_key(written) == by_key(lines(local.run_dir))


LOOPBACK_RUN = """
import json, sys
import simlab

result = simlab.run(sys.argv[1], out=sys.argv[2], progress=False, executor="ray")
print(json.dumps({"ok": len(result.records)}))
"""


def test_a_local_cluster_simlab_starts_listens_on_loopback_only(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    import subprocess
    import sys

    # ray imported when it runs: the driver imports the module to check it
    agent = "def reply(messages, ctx):\n    import ray\n    return ray.util.get_node_ip_address()\n"
    (tmp_path / "where_agent.py").write_text(agent, encoding="utf-8")
    suite = {
        "reps": 1,
        "max_turns": 1,
        "target": "where_agent:reply",
        "personas": ["terse_en"],
        "goals": ["refund"],
        "persona_dirs": [str(ROOT / "personas")],
        "goal_dirs": [str(ROOT / "goals")],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    script = tmp_path / "run.py"
    script.write_text(LOOPBACK_RUN, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    done = subprocess.run(
        [sys.executable, str(script), str(path), str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    [run_dir] = (tmp_path / "out").iterdir()
    replies = [
        turn["agent"]["text"]
        for record in lines(run_dir)
        for turn in record["transcript"]["turns"]
        if turn.get("agent")
    ]
    assert replies and set(replies) == {"127.0.0.1"}  # the worker's node is loopback
