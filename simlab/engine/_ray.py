"""The Ray executor: sessions on Ray worker actors, provider limits shared by all of them.

The driver (this process) hands each worker actor batches of session tickets
(key and seed) and gets their records back as JSON; it alone writes them,
charges the budget from their cost and draws the progress bar. Each worker
rebuilds the roles from the run's brief and plays up to the suite's
``concurrency`` sessions at once on its own event loop.

Rate limits: one ``ProviderLimiter`` actor holds one request bucket and one
token bucket per provider and role (the same token buckets a local run uses),
and every worker asks it before each LLM request. Quotas split by the driver
(R/N per worker) were the alternative: they waste the share of an idle or dead
worker (the tail of a run, a restart), round to nothing when R < N, and must be
redistributed when workers come and go; one permit exchange (about a
millisecond on one machine) is small next to an LLM call.

A worker that dies (SIGKILL, out of memory, a lost node) loses nothing: Ray
restarts it, the sessions it had in hand go back to the queue, and a session
whose worker died under it ``MAX_ATTEMPTS`` times is recorded as ``infra_error``
with the reason (``--retry-errors`` runs it again). A call refused because the
actor is still restarting (``ActorUnavailableError``) never reached a worker:
its sessions go back without spending a try, and that lane waits for its worker
to come back while the others go on. Records come back whole, so a session is
written once or not at all. The driver never fails on a dead actor: closing the
workers at the end is best effort, and the run ends with its summary and reports.

A local cluster this executor starts itself listens on loopback only.
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import signal
import socket
import sys
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from frozendict import frozendict

from simlab.engine._brief import BriefPlayer, JobTicket, RunBrief
from simlab.engine._contain import written
from simlab.engine._expand import SessionJob
from simlab.engine._orchestrator import RecordSink
from simlab.engine._roles import RoleLimitsFactory
from simlab.engine._session import unrun_record
from simlab.llm import Budget, LLMSpec, RoleLimits
from simlab.spec import Problem, RayExecutorSpec, SpecError
from simlab.store import SessionRecord, StopReason, record_line, slim_record

INSTALL = "pip install 'simlab[ray]'"
MAX_ATTEMPTS = 3
"""Times a session is handed to a worker before its workers' deaths are its record."""
OFFLINE_BATCH = 32
"""Sessions per call when every role is offline: amortises a call's latency."""
_IDLE_S = 0.05
"""How often an idle lane looks for sessions a dead worker handed back."""
_RESTART_WAIT_S = (0.2, 5.0)
"""How long a lane whose worker is restarting waits before it calls it again: the
first wait, doubled each time up to the second."""
_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's setting that, off, has a node take the loopback address (as on macOS) rather
than the machine's network address: read once, when Ray is imported."""


def import_ray(local_cluster: bool = False) -> Any:
    """The ``ray`` module.

    Args:
        local_cluster: A cluster for this run alone will be started here: Ray,
            when this call imports it, is set so that cluster listens on loopback
            only (every process of it: the GCS, the raylet, the workers), not on
            the machine's network address, where anyone who reaches the machine
            could submit work to it. Joining a cluster needs the network address.

    Raises:
        SpecError: Ray is not installed (the message says how to install it).
    """
    try:
        if local_cluster and "ray" not in sys.modules and _LOOPBACK_ENV not in os.environ:
            os.environ[_LOOPBACK_ENV] = "0"
            try:
                return importlib.import_module("ray")
            finally:
                del os.environ[_LOOPBACK_ENV]
        return importlib.import_module("ray")
    except ImportError:
        raise SpecError(
            [
                Problem(
                    "suite",
                    None,
                    "executor",
                    f"ray: Ray is not installed; {INSTALL} (or run with executor: local)",
                )
            ]
        ) from None


class ProviderLimiter:
    """The cluster's rate limits: one request and one token bucket per provider and role.

    Run as one Ray actor per run; workers await ``admit`` before each LLM
    request and report the real token use with ``settle``.
    """

    def __init__(self) -> None:
        self._limits: dict[str, RoleLimits] = {}

    def _of(self, key: str, rpm: float | None, tpm: float | None) -> RoleLimits:
        found = self._limits.get(key)
        if found is None:  # built inside the actor's event loop, on first use
            found = self._limits[key] = RoleLimits(1, rpm, tpm)
        return found

    async def admit(self, key: str, rpm: float | None, tpm: float | None, tokens: int) -> None:
        """Return once one request of about ``tokens`` input tokens may go."""
        await self._of(key, rpm, tpm).admit(tokens)

    async def settle(
        self, key: str, rpm: float | None, tpm: float | None, estimated: int, actual: int
    ) -> None:
        """Correct the token bucket once a request's real usage is known."""
        self._of(key, rpm, tpm).settle(estimated, actual)


class ClusterRoleLimits(RoleLimits):
    """A worker's limits of one role: its own running calls, the cluster's rates.

    Args:
        concurrency: This worker's calls of the role running at once.
        limiter: The ``ProviderLimiter`` actor.
        key: The provider and role the rates belong to.
        rpm: Requests per minute, over every worker.
        tpm: Tokens per minute, over every worker.
    """

    def __init__(
        self, concurrency: int, limiter: Any, key: str, rpm: float | None, tpm: float | None
    ) -> None:
        super().__init__(concurrency)
        self._limiter = limiter
        self._key = key
        self._rpm = rpm
        self._tpm = tpm

    async def admit(self, estimated_tokens: int) -> None:
        """Wait for the cluster's request and token allowances of one attempt."""
        await self._limiter.admit.remote(self._key, self._rpm, self._tpm, estimated_tokens)

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        """Report the real usage to the cluster's token bucket (not waited for)."""
        if self._tpm is not None:
            self._limiter.settle.remote(
                self._key, self._rpm, self._tpm, estimated_tokens, actual_tokens
            )


def shared_limits(limiter: Any) -> RoleLimitsFactory:
    """Limits whose rates every worker shares through ``limiter``."""

    def limits(role: str, spec: LLMSpec) -> RoleLimits:
        if spec.backend == "replay" or (spec.rpm is None and spec.tpm is None):
            return RoleLimits(spec.concurrency)
        key = f"{role}|{spec.backend}|{spec.base_url or ''}|{spec.model or ''}"
        return ClusterRoleLimits(spec.concurrency, limiter, key, spec.rpm, spec.tpm)

    return limits


class SessionWorker:
    """One Ray worker actor: plays the sessions it is handed, returns their records."""

    def __init__(self, brief: RunBrief, limiter: str) -> None:
        # the limiter by name, not handle: Ray keeps a handle argument in its object
        # store, from where a restarted worker may no longer get it
        handle = import_ray().get_actor(limiter)
        self._player = BriefPlayer(brief, shared_limits(handle))
        self._id = f"{socket.gethostname()}:{os.getpid()}"

    def pid(self) -> int:
        """This worker's process id."""
        return os.getpid()

    async def play(self, tickets: Sequence[JobTicket]) -> list[tuple[bytes, bytes]]:
        """The records of these sessions: each as its ``sessions.jsonl`` line (no
        newline) and its slim record's JSON (what the driver keeps and reads)."""
        records = await self._player.play(tickets)
        return [worker_lines(_ran_on(r, self._id)) for r in records]

    async def close(self) -> None:
        """Close the roles' clients."""
        await self._player.aclose()


def _ran_on(record: SessionRecord, worker: str) -> SessionRecord:
    """``record`` with the worker it ran on in its meta (never part of the result)."""
    return record.model_copy(update={"meta": frozendict({**record.meta, "worker": worker})})


def worker_lines(record: SessionRecord) -> tuple[bytes, bytes]:
    """What a worker sends the driver of one record: its ``sessions.jsonl`` line and
    its slim record's JSON (what the driver keeps and reads)."""
    record, line = written(record)  # text escaped, or the session's error record
    return line, record_line(slim_record(record))


def default_batch(suite: dict[str, Any]) -> int:
    """Sessions per call: many when every role is offline, else one (its record is
    written the moment it ends)."""
    offline = (
        suite.get("target", {}).get("kind") == "reference"
        and suite.get("simulator", {}).get("kind") == "scripted"
        and suite.get("judge") is None
    )
    return OFFLINE_BATCH if offline else 1


@dataclass
class RayExecutor:
    """Sessions on Ray worker actors (``executor: ray`` in a suite).

    Attributes:
        spec: The cluster's address, the number of workers, the batch size.
        brief: What each worker rebuilds the run's roles from.
        budget: The run's budget, charged here from each record's cost.
    """

    spec: RayExecutorSpec
    brief: RunBrief
    budget: Budget

    async def run(
        self,
        jobs: Sequence[SessionJob],
        on_record: RecordSink,
        should_start: Callable[[], bool],
    ) -> None:
        """Play ``jobs`` on the cluster (see ``SessionExecutor.run``)."""
        local = self.spec.address is None and not os.environ.get("RAY_ADDRESS")
        ray = import_ray(local_cluster=local)
        started_here = _connect(ray, self.spec.address)
        actors: list[Any] = []
        try:
            cpus = float(ray.cluster_resources().get("CPU", 1.0))
            n = self.spec.workers or max(1, int(cpus))
            batch = self.spec.batch or default_batch(self.brief.suite)
            lanes = max(2, math.ceil(self.brief.concurrency / batch))
            limiter = f"simlab-limiter-{uuid.uuid4().hex}"
            actors.append(
                ray.remote(ProviderLimiter)
                # a dead limiter comes back (with fresh buckets); calls wait for it
                .options(
                    name=limiter,
                    num_cpus=0,
                    max_concurrency=100_000,
                    max_restarts=-1,
                    max_task_retries=-1,
                )
                .remote()
            )
            worker = ray.remote(SessionWorker).options(
                num_cpus=min(1.0, cpus / n),
                max_restarts=-1,  # a dead worker comes back; its sessions are handed back
                max_task_retries=0,
                max_concurrency=lanes + 2,
            )
            workers = [worker.remote(self.brief, limiter) for _ in range(n)]
            actors.extend(workers)
            dispatch = _Dispatch(ray, jobs, batch, on_record, should_start, self.budget)
            async with anyio.create_task_group() as tg:
                dispatch.scope = tg.cancel_scope
                for _ in range(lanes):
                    for w in workers:  # round the workers, so each gets sessions first
                        tg.start_soon(dispatch.lane, w)
            if dispatch.failure is not None:
                raise _worker_failed(dispatch.failure, self.brief)
            await _close_workers(ray, workers)
        finally:
            for actor in actors:
                with contextlib.suppress(Exception):  # already dead: nothing to stop
                    ray.kill(actor)
            if started_here:
                ray.shutdown()


class _Dispatch:
    """Hands out batches of sessions to lanes (running calls), hands back a dead
    worker's, and passes records on to the driver."""

    def __init__(
        self,
        ray: Any,
        jobs: Sequence[SessionJob],
        batch: int,
        on_record: RecordSink,
        should_start: Callable[[], bool],
        budget: Budget,
    ) -> None:
        self._died = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError)
        self._restarting = ray.exceptions.ActorUnavailableError
        self._failed = ray.exceptions.RayTaskError
        self.scope: anyio.CancelScope | None = None
        self.failure: BaseException | None = None
        """The first error a worker raised (not its death): it ends the run."""
        self._queue: deque[tuple[SessionJob, int]] = deque((j, 0) for j in jobs)
        self._batch = batch
        self._on_record = on_record
        self._should_start = should_start
        self._budget = budget
        self._active = 0

    async def lane(self, worker: Any) -> None:
        """Keep one call to ``worker`` running until no session is left."""
        wait = _RESTART_WAIT_S[0]
        while self._should_start():
            taken = self._take()
            if not taken:
                if not self._active:
                    return
                await anyio.sleep(_IDLE_S)  # a running call may still hand sessions back
                continue
            self._active += 1
            try:
                lines = await worker.play.remote([(j.key, j.seed) for j, _ in taken])
            except self._restarting:
                # never reached a worker: no try spent; this lane waits for the restart
                self._queue.extendleft(reversed(taken))
                await anyio.sleep(wait)
                wait = min(2 * wait, _RESTART_WAIT_S[1])
                continue
            except self._died as e:
                self._hand_back(taken, e)
                continue
            except self._failed as e:  # not a session's failure (those are records)
                self.failure = self.failure or e
                if self.scope is not None:
                    self.scope.cancel()
                return
            finally:
                self._active -= 1
            wait = _RESTART_WAIT_S[0]
            # the driver parses the slim record only (a tenth of the whole one's
            # JSON) and writes the line as it came: its per-record cost bounds a
            # cluster's rate
            for line, slim in lines:
                record = SessionRecord.model_validate_json(slim)
                self._budget.charge(record.cost_usd)  # charged once, here
                self._on_record(record, line)

    def _take(self) -> list[tuple[SessionJob, int]]:
        n = min(self._batch, len(self._queue))
        return [self._queue.popleft() for _ in range(n)]

    def _hand_back(self, taken: list[tuple[SessionJob, int]], e: BaseException) -> None:
        why = _first_line(e)
        for job, attempts in reversed(taken):
            if attempts + 1 < MAX_ATTEMPTS:
                self._queue.appendleft((job, attempts + 1))
                continue
            message = f"the Ray worker playing it died {attempts + 1} times; last: {why}"
            self._on_record(unrun_record(job, StopReason.INFRA_ERROR, message))


async def _close_workers(ray: Any, workers: Sequence[Any]) -> None:
    """Ask each worker to close its clients, at most 10 s in all; a worker that is dead
    or restarting is skipped (it is killed next all the same)."""
    with anyio.move_on_after(10, shield=True):
        for w in workers:
            try:
                await w.close.remote()
            except ray.exceptions.RayError:
                continue


def _worker_failed(e: BaseException, brief: RunBrief) -> SpecError:
    """What to say when a worker raised: most likely it could not build the roles."""
    cause = getattr(e, "cause", None) or e
    return SpecError(
        [
            Problem(
                "suite",
                None,
                "executor",
                f"ray: a worker failed: {_first_line(cause)}; every machine needs simlab, the "
                f"suite's folder at {brief.suite_dir} and the API keys in its environment",
            )
        ]
    )


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return f"{type(e).__name__}: {text.splitlines()[0][:300]}"


def _connect(ray: Any, address: str | None) -> bool:
    """Join the cluster (or start a local one); True when this call started Ray here."""
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"address": address}
    if address is None and not os.environ.get("RAY_ADDRESS"):
        options["include_dashboard"] = False  # a local cluster for this run only
    with _signals_kept():
        ray.init(**options)
    return True


@contextmanager
def _signals_kept() -> Iterator[None]:
    """Ctrl-C and SIGTERM keep ending the run as simlab handles them, whatever
    ``ray.init`` installs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in kept.items():
            if handler is not None:
                signal.signal(s, handler)
