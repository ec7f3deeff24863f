"""The provider doubles' HTTP transport (corpus_tool/replay/doubles/server.py), as clients use it:
connections kept alive between requests (as an SDK's client keeps them) without holding up
another client, `Connection: close` and HTTP/1.0 honoured, curl's `Expect: 100-continue`, a
chunked request body, and a malformed request refused. Each request here finds no case bound,
so its answer is the doubles' own 400 naming that: the transport is what is under test."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time
from collections.abc import Iterator

import pytest

from corpus_tool.replay.doubles import connection, server
from corpus_tool.replay.doubles.server import Doubles

BODY = json.dumps({"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]})


@pytest.fixture
def doubles() -> Iterator[Doubles]:
    served = Doubles().start()
    try:
        yield served
    finally:
        served.close()


def ask(connection: http.client.HTTPConnection, **headers: str) -> tuple[int, dict[str, str], str]:
    connection.request("POST", "/v1/chat/completions", BODY, headers)
    answer = connection.getresponse()
    text = answer.read().decode()
    return answer.status, {k.lower(): v for k, v in answer.getheaders()}, text


def test_a_kept_alive_connection_answers_request_after_request_and_holds_no_other_client(
    doubles: Doubles,
) -> None:
    first = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    status, _, text = ask(first)
    assert status == 400 and "no case is replaying" in json.loads(text)["error"]["message"]
    kept = first.sock
    assert kept is not None
    other = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    assert ask(other)[0] == 400  # answered while the first connection sits idle, open
    assert ask(first)[0] == 400 and first.sock is kept  # the same connection, reused
    first.close()
    other.close()


def test_connection_close_and_http_1_0_end_the_connection_after_the_answer(
    doubles: Doubles,
) -> None:
    for head in (
        b"POST /v1/chat/completions HTTP/1.1\r\nConnection: close\r\n",
        b"POST /v1/chat/completions HTTP/1.0\r\n",
    ):
        with socket.create_connection((doubles.host, doubles.port), timeout=10) as sock:
            sock.sendall(head + f"Content-Length: {len(BODY)}\r\n\r\n{BODY}".encode())
            received = b""
            while chunk := sock.recv(65536):  # ends: the doubles closed their side
                received += chunk
        assert received.startswith(b"HTTP/1.1 400 ")
        assert b"no case is replaying" in received


def test_expect_100_continue_and_a_chunked_body_are_read(doubles: Doubles) -> None:
    with socket.create_connection((doubles.host, doubles.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
            + f"Content-Length: {len(BODY)}\r\n\r\n".encode()
        )
        assert sock.recv(65536).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(BODY.encode())
        assert b"no case is replaying" in sock.recv(65536)
        half = len(BODY) // 2
        chunks = f"{half:x}\r\n{BODY[:half]}\r\n{len(BODY) - half:x}\r\n{BODY[half:]}\r\n0\r\n\r\n"
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunks.encode()
        )
        assert b"no case is replaying" in sock.recv(65536)  # the body was JSON: read whole


def test_a_body_that_is_not_json_and_a_request_that_is_not_http_are_refused(
    doubles: Doubles,
) -> None:
    connection = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    connection.request("POST", "/v1/chat/completions", "{not json", {})
    answer = connection.getresponse()
    assert answer.status == 400 and "not JSON" in answer.read().decode()
    connection.request("GET", "/v1/models")
    answer = connection.getresponse()
    assert answer.status == 404 and "serves no GET /v1/models" in answer.read().decode()
    connection.close()
    with socket.create_connection((doubles.host, doubles.port), timeout=10) as sock:
        sock.sendall(b"HELLO\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 400 ")
        assert sock.recv(65536) == b""  # and closed


def test_a_defect_answering_one_request_is_its_500_and_the_next_request_is_answered(
    doubles: Doubles, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One thread serves every connection: an exception while answering is that request's
    500, never the end of the server (every later request would hang until the SDK's timeout)."""

    def broken(data: bytes) -> object:
        raise RuntimeError("a defect in the doubles")

    monkeypatch.setattr(server, "_body", broken)
    client = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    status, _, text = ask(client)
    assert status == 500 and "a defect in the doubles" in json.loads(text)["error"]["message"]
    monkeypatch.undo()
    other = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    status, _, text = ask(other)
    assert status == 400 and "no case is replaying" in json.loads(text)["error"]["message"]
    assert ask(client)[0] == 400  # the first connection too
    client.close()
    other.close()


CHUNKED_HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"


def refused_then_closed(doubles: Doubles, data: bytes) -> bytes:
    """What the doubles answer to `data` on a new connection, read until they close it."""
    with socket.create_connection((doubles.host, doubles.port), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        (b"-6\r\nhello!\r\n0\r\n\r\n", b"not hexadecimal"),  # read backwards for ever before
        (b"0x5\r\nhello\r\n0\r\n\r\n", b"not hexadecimal"),
        (b"5\r\nhelloXX\r\n0\r\n\r\n", b"longer than its size"),
        (b"f" * 5000, b"chunk-size line is too long"),  # grew the buffer for ever before
    ],
    ids=["negative", "0x-prefix", "overlong-chunk", "endless-size-line"],
)
def test_a_malformed_chunked_body_is_refused_and_the_server_goes_on(
    doubles: Doubles, sent: bytes, said: bytes
) -> None:
    """One thread reads every connection: a chunk size it cannot trust is a 400 at once, never
    a loop or a buffer that grows while every other agent waits."""
    received = refused_then_closed(doubles, CHUNKED_HEAD + sent)
    assert received.startswith(b"HTTP/1.1 400 ") and said in received
    client = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    assert ask(client)[0] == 400  # the next request is answered: the thread is alive
    client.close()


def test_a_chunked_body_with_a_trailer_and_chunks_in_pieces_is_read_whole(
    doubles: Doubles,
) -> None:
    body = BODY.encode()
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7)
    )
    data = CHUNKED_HEAD + chunks + b"0\r\nX-Checksum: 1\r\n\r\n"
    with socket.create_connection((doubles.host, doubles.port), timeout=10) as sock:
        for at in range(0, len(data), 5):  # the body arrives five bytes at a time
            sock.sendall(data[at : at + 5])
        received = b""
        while b"no case is replaying" not in received:
            received += sock.recv(65536)
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\n"
            + f"Content-Length: {len(BODY)}\r\n\r\n{BODY}".encode()
        )
        assert b"no case is replaying" in sock.recv(65536)  # the trailer was used up


def test_a_client_that_stops_reading_holds_up_no_other_client(doubles: Doubles) -> None:
    """An agent that sends requests and never reads their answers fills its socket: the doubles
    keep its answers queued and serve everyone else (before, the one thread waited 30 s)."""
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\n"
        + f"Content-Length: {len(BODY)}\r\n\r\n{BODY}".encode()
    )
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect((doubles.host, doubles.port))
    stalled.settimeout(10)
    sent = 0
    with contextlib.suppress(TimeoutError, BlockingIOError):  # its requests back up too
        stalled.setblocking(False)
        for _ in range(40_000):  # ~10 MB of answers: more than the sockets' buffers hold
            sent += stalled.send(request)
    assert sent > 1_000_000
    time.sleep(1)  # the doubles read what they can and answer into the full socket
    started = time.monotonic()
    other = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    assert ask(other)[0] == 400
    assert time.monotonic() - started < 5
    other.close()
    stalled.setblocking(True)
    received = stalled.recv(65536)  # and the stalled one's answers are there when it reads
    assert received.startswith(b"HTTP/1.1 400 ")
    stalled.close()


def test_a_connection_holding_more_than_the_buffer_limit_is_refused(
    doubles: Doubles, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body sent in tiny chunks that never ends is bounded by what one connection may hold
    unread (MAX_BUFFER, lowered here): 413, the connection closed, the next client answered."""
    monkeypatch.setattr(connection, "MAX_BUFFER", 1000)
    received = refused_then_closed(doubles, CHUNKED_HEAD + b"1\r\na\r\n" * 400)
    assert received.startswith(b"HTTP/1.1 413 ") and b"over the doubles' limit" in received
    client = http.client.HTTPConnection(doubles.host, doubles.port, timeout=10)
    assert ask(client)[0] == 400
    client.close()
