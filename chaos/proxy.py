"""A TCP proxy on loopback that a test can cut and restore: the database outage, made real.

`cut()` closes every proxied connection at once (both sides) and refuses new ones until `restore()`:
clients see exactly what a network partition or a database restart looks like from their side.
Threaded, no dependencies; bounded (a listen backlog, daemon threads, `close()` ends everything).
"""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, upstream_host: str, upstream_port: int, *, listen_port: int = 0) -> None:
        self.upstream = (upstream_host, upstream_port)
        self._listener = socket.create_server(("127.0.0.1", listen_port), backlog=128)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        self.accepted = 0
        self.refused = 0
        self._thread = threading.Thread(target=self._accept_loop, name="chaos-proxy", daemon=True)
        self._thread.start()

    # --- control ---
    def cut(self) -> int:
        """Drop every open connection and refuse new ones. Returns how many connections were dropped."""
        with self._lock:
            self._cut = True
            victims = list(self._open)
            self._open.clear()
        for sock in victims:
            _hard_close(sock)
        return len(victims) // 2

    def restore(self) -> None:
        with self._lock:
            self._cut = False

    def close(self) -> None:
        self._closed = True
        self.cut()
        try:
            self._listener.close()
        except OSError:
            pass

    # --- plumbing ---
    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._cut:
                self.refused += 1
                _hard_close(client)
                continue
            try:
                upstream = socket.create_connection(self.upstream, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _hard_close(client)
                continue
            with self._lock:
                if self._cut:
                    _hard_close(client)
                    _hard_close(upstream)
                    continue
                self._open.update((client, upstream))
                self.accepted += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), name="chaos-proxy-pipe", daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._open.discard(src)
                self._open.discard(dst)
            _hard_close(src)
            _hard_close(dst)


def _hard_close(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0) so the peer sees the connection drop at once."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass
