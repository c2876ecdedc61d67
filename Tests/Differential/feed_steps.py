"""Steps of the differential corpus that read the Emulator UI's Requests feed: a WebSocket at
ws://HOST/requests (the server's `--websocket_port`) that sends, on connect, a JSON array of
the rules evaluations made so far, then one JSON object per evaluation.

A small RFC 6455 client on the standard library (CI needs nothing from PyPI for it): the
handshake, masked client frames, and reading text frames (a ping is answered, a close ends the
read). Each case reads only the evaluations of its own project (`rulesReleaseKey` starts with
`projects/{project}/`), so cases never see each other's."""
import base64
import hashlib
import json
import os
import socket
import struct
import time

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class FeedClient:
    """One connection to the feed."""

    def __init__(self, host, timeout=5.0):
        h, p = host.rsplit(":", 1)
        self.sock = socket.create_connection((h.strip("[]"), int(p)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /requests HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        buf = b""
        deadline = time.time() + timeout
        while b"\r\n\r\n" not in buf:
            chunk = self._recv(deadline)
            if not chunk:
                raise ConnectionError("the feed closed during the handshake")
            buf += chunk
        head, self.buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionError(f"the feed answered {lines[0]!r}")
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        headers = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
        if headers.get("sec-websocket-accept") != accept:
            raise ConnectionError("wrong Sec-WebSocket-Accept")
        self.closed = False

    def _recv(self, deadline):
        left = deadline - time.time()
        if left <= 0:
            return None
        self.sock.settimeout(left)
        try:
            return self.sock.recv(65536)
        except socket.timeout:
            return None

    def _need(self, n, deadline):
        while len(self.buf) < n:
            chunk = self._recv(deadline)
            if chunk is None:
                return False
            if not chunk:
                self.closed = True
                return False
            self.buf += chunk
        return True

    def send(self, opcode, payload=b""):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def message(self, timeout):
        """The next text message (str), or None when none came within `timeout` seconds or
        the server closed."""
        deadline = time.time() + timeout
        parts = []
        while not self.closed:
            if not self._need(2, deadline):
                return None
            b0, b1 = self.buf[0], self.buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if not self._need(4, deadline):
                    return None
                n, at = struct.unpack(">H", self.buf[2:4])[0], 4
            elif n == 127:
                if not self._need(10, deadline):
                    return None
                n, at = struct.unpack(">Q", self.buf[2:10])[0], 10
            if not self._need(at + n, deadline):
                return None
            payload, self.buf = self.buf[at:at + n], self.buf[at + n:]
            opcode = b0 & 0x0F
            if opcode == 0x9:
                self.send(0xA, payload)
            elif opcode == 0x8:
                self.closed = True
                return None
            elif opcode in (0x0, 0x1, 0x2):
                parts.append(payload)
                if b0 & 0x80:
                    return b"".join(parts).decode("utf-8")
        return None

    def close(self):
        try:
            if not self.closed:
                self.send(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        self.sock.close()


def mine(evaluation, project):
    key = evaluation.get("rulesReleaseKey") or evaluation.get("rulesReleaseName") or ""
    return key.startswith(f"projects/{project}/")


def read_feed(client, project, quiet, count=None):
    """The evaluations of `project` that arrive until the feed has been quiet for `quiet`
    seconds (or, with `count`, until that many arrived and a short tail passed quietly)."""
    out = []
    while True:
        # Recording: until quiet. Replaying: the recorded count, then a short quiet tail; one
        # still missing is waited for 0.6 s (a server sends a request's evaluations before
        # its answer, so they are on their way by the time the answer has arrived).
        if count is None:
            wait = quiet
        elif len(out) >= count:
            wait = min(quiet, 0.15)
        else:
            wait = 0.6
        text = client.message(wait)
        if text is None:
            return out
        value = json.loads(text)
        for e in value if isinstance(value, list) else [value]:
            if mine(e, project):
                out.append(e)


def initial(host, project, timeout=5.0):
    """A fresh connection's first message (the past evaluations), of `project` only."""
    client = FeedClient(host, timeout)
    try:
        text = client.message(timeout)
        if text is None:
            return {"closed": True}
        value = json.loads(text)
        if not isinstance(value, list):
            return {"first": "object"}
        return {"initial": [e for e in value if mine(e, project)]}
    finally:
        client.close()
