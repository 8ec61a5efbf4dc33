"""A TCP proxy for the model pull's tests and benchmark: in front of the Hub (olah) or of
a node's sshd (a node-to-node copy). It counts the bytes each way, can hold one way at a
byte count the test chooses (a pull stopped at a known point, no timing), and can limit
the Hub's bytes to a rate (a token bucket: the benchmark's stand-in for the internet
link between a Spark and the Hub).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

CHUNK = 16 << 10


class HubProxy:
    def __init__(self, upstream: tuple[str, int], rate: float | None = None,
                 listen: tuple[str, int] = ("127.0.0.1", 0), hold_up: bool = False):
        self.upstream, self.rate, self.hold_up = upstream, rate, hold_up
        self.down = self.up = 0
        self.hold_at: int | None = None
        self.held = threading.Event()
        self._release = threading.Event()
        self._lock = threading.Lock()
        self._tokens, self._stamp = 0.0, time.monotonic()
        self.sock = socket.create_server(listen)
        self.url = f"http://{listen[0]}:{self.sock.getsockname()[1]}"
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def hold(self, at: int) -> None:
        """Send nothing past ``at`` bytes (counted since the last ``reset``)."""
        self.hold_at, self.held = at, threading.Event()
        self._release.clear()

    def release(self) -> None:
        self.hold_at = None
        self._release.set()

    def reset(self) -> None:
        with self._lock:
            self.down = self.up = 0

    def close(self) -> None:
        self._closed = True
        self.release()
        self.sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, True), daemon=True).start()

    def _take(self, n: int) -> None:
        """Wait for ``n`` tokens of the bucket (``rate`` bytes a second, a burst of 50 ms
        of them: a finer bucket sleeps so often that the sleeps' own cost, not the rate,
        would limit one connection more than several)."""
        if self.rate is None:
            return
        while True:
            with self._lock:
                now = time.monotonic()
                burst = max(CHUNK, self.rate * 0.05)
                self._tokens = min(burst, self._tokens + (now - self._stamp) * self.rate)
                self._stamp = now
                if self._tokens >= n:
                    self._tokens -= n
                    return
                wait = (n - self._tokens) / self.rate
            time.sleep(wait)

    def _count(self, down: bool, n: int) -> None:
        with self._lock:
            if down:
                self.down += n
            else:
                self.up += n

    def _pump(self, source: socket.socket, sink: socket.socket, down: bool) -> None:
        held = down != self.hold_up  # the way a hold stops
        try:
            while data := source.recv(CHUNK):
                while held and self.hold_at is not None and \
                        (self.up if self.hold_up else self.down) + len(data) > self.hold_at:
                    room = max(0, self.hold_at - (self.up if self.hold_up else self.down))
                    if room:
                        sink.sendall(data[:room])
                        self._count(down, room)
                        data = data[room:]
                    self.held.set()
                    self._release.wait()
                    if self._closed:
                        return
                if down:
                    self._take(len(data))
                sink.sendall(data)
                self._count(down, len(data))
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()
