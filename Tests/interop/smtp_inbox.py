"""A real SMTP server on loopback (aiosmtpd) that keeps every message it receives, for tests
that read the code out of an email the way a person would."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time

from aiosmtpd.controller import Controller

import harness


class Mailbox:
    """aiosmtpd on 127.0.0.1:<free port>; `messages` are parsed `email.message.EmailMessage`s."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or harness.free_port()
        self.messages: list[email.message.EmailMessage] = []
        self.lock = threading.Condition()
        mailbox = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's naming)
                message = email.message_from_bytes(envelope.original_content, policy=email.policy.default)
                with mailbox.lock:
                    mailbox.messages.append(message)
                    mailbox.lock.notify_all()
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def start(self) -> "Mailbox":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def __enter__(self) -> "Mailbox":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def wait_for(self, to: str, count: int = 1, timeout: float = 30) -> email.message.EmailMessage:
        """The `count`-th message to `to`, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                found = [m for m in self.messages if to.lower() in str(m["To"]).lower()]
                if len(found) >= count:
                    return found[count - 1]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no message {count} to {to} within {timeout} s; got {[str(m['To']) for m in self.messages]}")
                self.lock.wait(remaining)


def text_of(message: email.message.EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None, "the message has no text part"
    return part.get_content()


def code_in(message: email.message.EmailMessage) -> str:
    """The six-digit code, as a person reads it off the text part."""
    match = re.search(r"\b(\d{6})\b", text_of(message))
    assert match, f"no six-digit code in:\n{text_of(message)}"
    return match.group(1)
