"""Oracle calls on a Dask distributed cluster, behind the `concurrent.futures.Executor` interface.

`distributed` is a well-kept scheduler with worker recovery; its `Client.get_executor()` is a
standard executor, so the evaluator and the fuzz campaign use a cluster exactly like a local
pool. The workers need this project and the IREE wheels installed (same versions).
"""

from __future__ import annotations

import gc
import socket
import threading
from concurrent.futures import Executor, Future

from oracles import refusals

CONNECT_TIMEOUT_S = 10.0


class ClusterError(ValueError):
    """The scheduler address is unusable; the message is one actionable line."""


def _probe(address: str, timeout: float) -> None:
    """Fails fast, before a Client exists, when nothing listens at a tcp-like address."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address, strict=True)
        if scheme not in ("tcp", "tls", "ws", "wss"):
            return
        host, port = parse_host_port(location)
    except ValueError as err:
        raise ClusterError(refusals.SCHEDULER_ADDRESS.say(address=address, error=err)) from None
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        raise ClusterError(refusals.SCHEDULER_UNREACHABLE.say(address=address, error=err.strerror or err)) from None


def _client(address: str, timeout: float):
    """A connected Client, or ClusterError; a server that never answers the handshake counts as down."""
    from distributed import Client

    result: list = []

    def connect() -> None:
        try:
            result.append(Client(address, timeout=timeout, set_as_default=False))
        except Exception as err:  # noqa: BLE001  (every failure here is one line for the user)
            result.append(err)

    thread = threading.Thread(target=connect, daemon=True, name="dask-connect")
    thread.start()
    thread.join(timeout + 5)
    if not result:
        raise ClusterError(refusals.SCHEDULER_SILENT.say(address=address, timeout=timeout))
    if isinstance(result[0], Exception):
        message = str(result[0]).splitlines()[0] if str(result[0]) else type(result[0]).__name__
        result.clear()
        gc.collect()  # the half-made Client closes now, not noisily at interpreter exit
        raise ClusterError(refusals.SCHEDULER_REFUSED.say(address=address, error=message))
    return result[0]


class ClusterExecutor(Executor):
    """A Dask cluster as an executor; shutting it down cancels what is left and disconnects."""

    def __init__(self, address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
        _probe(address, timeout)
        self.address = address
        self.client = _client(address, timeout)
        # pure=False: every call runs (a verdict may be wanted again after a flaky one).
        self._executor = self.client.get_executor(pure=False)

    @property
    def workers(self) -> int:
        """Threads across the cluster's workers: how many calls can run at once."""
        return sum(self.client.nthreads().values())

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait and not cancel_futures)
        self.client.close()
