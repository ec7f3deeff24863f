"""One client connection of the provider doubles: HTTP/1.1 requests read as they arrive, answers
written as the client takes them, never waiting on it.

The doubles serve every connection from one thread, so nothing here may block or loop on what a
client sends: an answer the client does not read yet stays queued (the connection reads no more
requests until it has gone), a head, a chunk-size line, a trailer and the whole buffer are
bounded, a chunk size is strict hexadecimal (a negative one sent the reader backwards for ever),
and a chunked body is decoded once, where it left off, not again from its start on every read.
"""

from __future__ import annotations

import contextlib
import re
import selectors
import socket
from collections.abc import Callable, Mapping
from http import HTTPStatus
from urllib.parse import urlsplit

MAX_BODY = 64 << 20
MAX_HEAD = 64 << 10
MAX_BUFFER = 2 * MAX_BODY
"""What one connection may hold unread: a body at the limit, sent in small chunks, fits."""
MAX_SIZE_LINE = 4 << 10
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]{1,15})[ \t]*(?:;[^\r\n]*)?")
READ, WRITE = selectors.EVENT_READ, selectors.EVENT_WRITE

Answer = tuple[int, bytes, bytes, tuple[str, ...]]
"""An HTTP answer: status, content type, body, more header lines."""
Request = tuple[str, str, bytes, bool]
"""A complete request: method, path, body, whether the connection stays open after it."""


class Refusal:
    """A request the doubles cannot read: its status and why (the connection then closes)."""

    def __init__(self, status: int, message: str) -> None:
        self.status, self.message = status, f"corpus replay: {message}"


class Connection:
    """One client's socket, the bytes read and not yet used, and the answers not yet sent."""

    def __init__(
        self,
        sock: socket.socket,
        respond: Callable[[str, str, bytes], Answer],
        refuse: Callable[[Refusal], Answer],
    ) -> None:
        self.sock = sock
        self.respond, self.refuse = respond, refuse
        self.buffer = bytearray()
        self.out = bytearray()
        self.closing = False  # close once `out` is sent: a refusal, `Connection: close`
        self.continued = False  # `100 Continue` sent for the request being read
        self.chunked: tuple[bytearray, int] | None = None  # body so far, where to go on

    def events(self) -> int:
        """What the selector should wait for: the client taking the answers, else a request."""
        return WRITE if self.out else READ

    def ready(self, events: int) -> bool:
        """Handle what the selector saw; False: close the connection."""
        if events & READ and not self._read():
            return False
        if events & WRITE and not self._flush():
            return False
        if not self.out and not self.closing:
            self._answer_buffered()  # requests read while answers waited
            if not self._flush():
                return False
        return not (self.closing and not self.out)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    def _read(self) -> bool:
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            return False
        if not data:
            return False
        self.buffer += data
        if len(self.buffer) > MAX_BUFFER:
            self._queue(self.refuse(Refusal(413, "the request is over the doubles' limit")))
            self.closing = True
        return True

    def _answer_buffered(self) -> None:
        """Answer each complete request in the buffer, until one waits to be sent."""
        while not self.out and not self.closing:
            request = self._request()
            if request is None:
                return
            if isinstance(request, Refusal):
                self._queue(self.refuse(request))
                self.closing = True
                return
            method, path, body, keep = request
            self._queue(self.respond(method, path, body))
            self.closing = not keep

    def _queue(self, answer: Answer) -> None:
        status, kind, body, more = answer
        head = [f"HTTP/1.1 {status} {reason(status)}", f"Content-Type: {kind.decode()}"]
        head.append(f"Content-Length: {len(body)}")
        head.extend(more)
        self.out += ("\r\n".join(head) + "\r\n\r\n").encode() + body

    def _flush(self) -> bool:
        """Send what the socket takes now; the rest waits for the selector's next WRITE."""
        while self.out:
            try:
                sent = self.sock.send(self.out)
            except (BlockingIOError, InterruptedError):
                return True
            except OSError:
                return False
            del self.out[:sent]
        return True

    def _request(self) -> Request | Refusal | None:
        """The next complete request in the buffer, a refusal of a malformed one, or None
        while it is incomplete."""
        buffer = self.buffer
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            return Refusal(431, "the request head is too large") if len(buffer) > MAX_HEAD else None
        if end > MAX_HEAD:
            return Refusal(431, "the request head is too large")
        lines = bytes(buffer[:end]).decode("latin-1").split("\r\n")
        while lines and not lines[0]:
            lines.pop(0)  # blank lines before a request line are allowed
        parts = lines[0].split(" ") if lines else []
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            return Refusal(400, "not an HTTP/1.1 request")
        method, target, version = parts
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        asked = headers.get("connection", "").lower()
        keep = "close" not in asked and (version != "HTTP/1.0" or "keep-alive" in asked)
        found = self._body(headers, end + 4)
        if found is None or isinstance(found, Refusal):
            return found
        body, used = found
        del buffer[:used]
        self.continued, self.chunked = False, None
        return method, urlsplit(target).path.rstrip("/"), body, keep

    def _body(self, headers: Mapping[str, str], start: int) -> tuple[bytes, int] | Refusal | None:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            found = self._chunks(start)
        else:
            try:
                length = int(headers.get("content-length") or 0)
            except ValueError:
                return Refusal(400, "the Content-Length is not a number")
            if length > MAX_BODY or length < 0:
                return Refusal(413, f"the request body is over {MAX_BODY >> 20} MiB")
            end = start + length
            found = (bytes(self.buffer[start:end]), end) if len(self.buffer) >= end else None
        if found is None:
            self._continue(headers)
        return found

    def _chunks(self, start: int) -> tuple[bytes, int] | Refusal | None:
        """A chunked body from `start`: (body, bytes used), or None while incomplete; what is
        decoded is kept, so each read decodes only what arrived."""
        buffer = self.buffer
        body, at = self.chunked or (bytearray(), start)
        while True:
            eol = buffer.find(b"\r\n", at, at + MAX_SIZE_LINE + 2)
            if eol < 0:
                if len(buffer) - at > MAX_SIZE_LINE:
                    return Refusal(400, "a chunk-size line is too long")
                self.chunked = body, at
                return None
            size_line = _CHUNK_SIZE.fullmatch(buffer, at, eol)
            if size_line is None:
                return Refusal(400, "a chunk size is not hexadecimal")
            size = int(size_line.group(1), 16)
            if size == 0:
                done = _trailer(buffer, body, eol + 2)
                if done is None:
                    self.chunked = body, at
                return done
            if len(body) + size > MAX_BODY:
                return Refusal(413, f"the request body is over {MAX_BODY >> 20} MiB")
            if len(buffer) < eol + 2 + size + 2:
                self.chunked = body, at
                return None
            if buffer[eol + 2 + size : eol + 4 + size] != b"\r\n":
                return Refusal(400, "a chunk is longer than its size")
            body += buffer[eol + 2 : eol + 2 + size]
            at = eol + 2 + size + 2

    def _continue(self, headers: Mapping[str, str]) -> None:
        """The body is still to come: say `100 Continue` once when the client waits for it."""
        if not self.continued and headers.get("expect", "").lower() == "100-continue":
            self.continued = True
            self.out += b"HTTP/1.1 100 Continue\r\n\r\n"
            if not self._flush():
                self.closing = True


def _trailer(buffer: bytearray, body: bytearray, at: int) -> tuple[bytes, int] | Refusal | None:
    """After the last chunk: trailer lines (ignored) up to an empty line."""
    if buffer[at : at + 2] == b"\r\n":
        return bytes(body), at + 2
    end = buffer.find(b"\r\n\r\n", at, at + MAX_HEAD + 4)
    if end < 0:
        return Refusal(431, "the trailer is too large") if len(buffer) - at > MAX_HEAD else None
    return bytes(body), end + 4


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
