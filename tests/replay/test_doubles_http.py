"""The provider doubles' HTTP transport (corpus_tool/replay/doubles/server.py), as clients use it:
connections kept alive between requests (as an SDK's client keeps them) without holding up
another client, `Connection: close` and HTTP/1.0 honoured, curl's `Expect: 100-continue`, a
chunked request body, and a malformed request refused. Each request here finds no case bound,
so its answer is the doubles' own 400 naming that: the transport is what is under test."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator

import pytest

from corpus_tool.replay.doubles import server
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
