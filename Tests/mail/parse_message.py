#!/usr/bin/env python3
"""Parses an RFC 5322 message on stdin with Python's email package (a parser we did not write)
and prints JSON: decoded headers, the text and HTML parts, and any defects found."""
import email
import email.policy
import json
import sys

raw = sys.stdin.buffer.read()
message = email.message_from_bytes(raw, policy=email.policy.default)
result = {
    "subject": str(message["subject"]),
    "from": str(message["from"]),
    "to": str(message["to"]),
    "date": str(message["date"]),
    "message_id": str(message["message-id"]),
    "content_type": message.get_content_type(),
    "defects": [type(d).__name__ for d in message.defects],
    "bare_lf": b"\n" in raw.replace(b"\r\n", b""),
    "longest_line": max(len(line) for line in raw.split(b"\r\n")),
}
for part in message.walk():
    result["defects"] += [type(d).__name__ for d in part.defects]
    if part.get_content_type() == "text/plain":
        result["text"] = part.get_content().replace("\r\n", "\n")
    elif part.get_content_type() == "text/html":
        result["html"] = part.get_content().replace("\r\n", "\n")
print(json.dumps(result))
