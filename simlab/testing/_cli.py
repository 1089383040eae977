"""``simlab fake-provider``: serve the fake provider until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from simlab.spec import SpecError, load_domains
from simlab.testing._config import FakeProviderConfig, FaultMix
from simlab.testing._responders import Responder, default_responder, echo
from simlab.testing._roleplay import Roleplay, roleplay, roleplay_models, roleplay_of
from simlab.testing._server import FakeProvider

_RESPONDERS: dict[str, Responder] = {
    "default": default_responder,
    "echo": echo,
    "roleplay": roleplay,
    "roleplay-v1": Roleplay("v1"),
    "roleplay-models": roleplay_models,
}


def _fault_mix(text: str) -> FaultMix:
    # argparse shows only "invalid value" for a ValueError; the valid kinds help more
    try:
        return FaultMix.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{e}; e.g. rate_limit=3,timeout=1") from None


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535 (0: any free port), got {port}")
    return port


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simlab fake-provider",
        description="Serve a fake Anthropic / OpenAI-compatible LLM provider on loopback.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=0, help="port (default 0: any free port)")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="fixed delay per answer")
    parser.add_argument("--jitter-ms", type=float, default=0.0, help="extra uniform delay")
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of failing calls")
    parser.add_argument(
        "--faults",
        type=_fault_mix,
        default=FaultMix(),
        help="fault weights, e.g. rate_limit=3,overloaded=1,timeout=1 "
        "(kinds: rate_limit overloaded server_error timeout dropped malformed; "
        "default: rate_limit, overloaded, server_error equally)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault draws")
    parser.add_argument("--retry-after", type=float, default=1.0, help="retry-after on 429s (s)")
    parser.add_argument(
        "--timeout-hang", type=float, default=30.0, help="hang of timeout faults (s)"
    )
    parser.add_argument(
        "--responder",
        choices=sorted(_RESPONDERS),
        # roleplay: what `simlab run --llm ...` needs (its user, agent and judge prompts)
        default="roleplay",
        help="how it answers (default roleplay): roleplay plays simlab's own roles (the "
        "simulated user, the LLM agent as reference agent v2, the judge); roleplay-v1 plays "
        "the agent as v1, defects on; roleplay-models plays the agent as v1 for model names "
        "starting fake-small and as v2 for any other (two quality profiles, for simlab "
        "routing); default is a generic answer; echo repeats the last user message",
    )
    parser.add_argument(
        "--domain",
        help="the domain the played agent serves: a domain folder or a shipped domain's "
        "name (default: the shipped travel domain); give yours for a hosted agent "
        "(target kind llm) of your own domain",
    )
    return parser


def _responder(name: str, domain: str | None) -> Responder:
    """The ``--responder`` named, its played agent serving ``domain`` when one is given.

    Raises:
        SpecError: ``domain`` names no domain, or one with problems.
        ValueError: a domain given to a responder that plays no agent.
    """
    if domain is None:
        return _RESPONDERS[name]
    found = load_domains([domain], Path.cwd())
    played = roleplay_of(found.domains[found.default])
    if name not in played:
        raise ValueError(f"--domain is for the roleplay responders; {name} plays no agent")
    return played[name]


async def _serve_forever(fake: FakeProvider, host: str, port: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with fake.serve(host, port) as url:
        print(f"simlab fake provider listening on {url}", flush=True)
        print(f"  ANTHROPIC_BASE_URL={url}   OpenAI base_url={url}/v1   stats: {url}/stats")
        print("Press Ctrl-C to stop.", flush=True)
        await stop.wait()


def cli_main(argv: Sequence[str] | None = None) -> int:
    """Run ``simlab fake-provider [options]``; returns the exit code.

    Serves until Ctrl-C (SIGINT) or SIGTERM, printing the base URL first.
    Exit codes: 0 after a clean stop, 2 for bad options or an unbindable port.
    """
    parser = _parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        config = FakeProviderConfig(
            latency_ms=args.latency_ms,
            jitter_ms=args.jitter_ms,
            fault_rate=args.fault_rate,
            fault_mix=args.faults,
            seed=args.seed,
            retry_after_s=args.retry_after,
            timeout_hang_s=args.timeout_hang,
        )
    except ValueError as exc:
        parser.print_usage(sys.stderr)
        print(f"simlab fake-provider: error: {exc}", file=sys.stderr)
        return 2
    try:
        responder = _responder(args.responder, args.domain)
    except (SpecError, ValueError) as exc:
        print(f"simlab fake-provider: error: {exc}", file=sys.stderr)
        return 2
    fake = FakeProvider(config, responder)
    try:
        asyncio.run(_serve_forever(fake, args.host, args.port))
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(
            f"simlab fake-provider: cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr
        )
        return 2
    stats = fake.stats()
    print(f"stopped after {stats.requests} requests ({stats.total_faults} faults)", flush=True)
    return 0
