#!/usr/bin/env python3
"""Sends N requests of one kind, one after another on one keep-alive connection, to a daemon that
prepare_tokens.py set up (scripts/bench instructions). Refreshes follow each token's rotation
chain; the chains' heads are kept in POOL_DIR/chains.json between calls.

Usage: drive_requests.py BASE_URL POOL_DIR KIND N   (KIND: refresh_ES256, refresh_RS256,
client_credentials, userinfo, or all: one of each per round, to warm the daemon up)
"""
import http.client
import json
import os
import sys
import urllib.parse

base, pool, kind, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(line.strip().split("=", 1) for line in open(os.path.join(pool, "env.sh")) if "=" in line)
chains_path = os.path.join(pool, "chains.json")
if os.path.exists(chains_path):
    chains = json.load(open(chains_path))
else:
    chains = {alg: open(os.path.join(pool, f"refresh_{alg}.txt")).read().split() for alg in ("ES256", "RS256")}
access = open(os.path.join(pool, "access.txt")).read().split()
url = urllib.parse.urlparse(base)
connection = http.client.HTTPConnection(url.hostname, url.port)


def send(method, path, body=None, headers=None):
    connection.request(method, path, body, headers or {})
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        sys.exit(f"drive_requests: {method} {path} answered {response.status}: {data[:200]!r}")
    return data


def refresh(alg, index):
    tokens = chains[alg]
    slot = index % len(tokens)
    body = json.dumps({"grant_type": "refresh_token", "client_id": env[alg + "_CLIENT"], "refresh_token": tokens[slot]})
    tokens[slot] = json.loads(send("POST", "/oauth/token", body, {"Content-Type": "application/json"}))["refresh_token"]


def client_credentials():
    send("POST", "/oauth/token", "grant_type=client_credentials&audience=https%3A%2F%2Fapi.bench.example",
         {"Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + env["M2M_BASIC"]})


def userinfo(index):
    send("GET", "/userinfo", headers={"Authorization": "Bearer " + access[index % len(access)]})


for index in range(count):
    if kind in ("refresh_ES256", "all"):
        refresh("ES256", index)
    if kind in ("refresh_RS256", "all"):
        refresh("RS256", index)
    if kind in ("client_credentials", "all"):
        client_credentials()
    if kind in ("userinfo", "all"):
        userinfo(index)
json.dump(chains, open(chains_path, "w"))
