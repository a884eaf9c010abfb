#!/usr/bin/env python3
"""Hostile clients for the soak test (`scripts/load.sh --soak`): until
killed, every few seconds each wave opens idle connections, sends
oversized or malformed requests, and pipelines requests whose replies it
never reads, against http_hello and mini_redis. The servers must keep
their memory flat and keep serving the well-behaved load beside this.

    python3 scripts/attackers.py HTTP_PORT REDIS_PORT
"""
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
WAVE_SECONDS = 5


def connect(port):
    s = socket.socket()
    s.settimeout(2)
    s.connect((HOST, port))
    return s


def hold(socks, seconds):
    time.sleep(seconds)
    for s in socks:
        try:
            s.close()
        except OSError:
            pass


def http_wave(port):
    socks = []
    try:
        socks += [connect(port) for _ in range(50)]  # idle
        bomb = connect(port)  # a 30 KB header block
        bomb.sendall(b"GET / HTTP/1.1\r\nX: " + b"a" * 30_000 + b"\r\n\r\n")
        smuggle = connect(port)  # conflicting Content-Length
        smuggle.sendall(b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello")
        reader_less = connect(port)  # pipelines and never reads
        reader_less.setblocking(False)
        req = b"GET / HTTP/1.1\r\n\r\n" * 50_000
        try:
            reader_less.send(req)
        except (BlockingIOError, OSError):
            pass
        socks += [bomb, smuggle, reader_less]
    except OSError as e:
        print(f"attackers: http wave: {e}", file=sys.stderr)
    hold(socks, WAVE_SECONDS - 1)


def redis_wave(port):
    socks = []
    try:
        socks += [connect(port) for _ in range(50)]  # idle
        junk = connect(port)  # a count line that never ends
        junk.sendall(b"*" + b"9" * 100_000)
        big = connect(port)  # a 1 MiB value, then replies never read
        value = b"v" * (1 << 20)
        big.sendall(b"*3\r\n$3\r\nSET\r\n$7\r\nsoakbig\r\n$%d\r\n%s\r\n" % (len(value), value))
        big.setblocking(False)
        try:
            big.send(b"*2\r\n$3\r\nGET\r\n$7\r\nsoakbig\r\n" * 100)
        except (BlockingIOError, OSError):
            pass
        socks += [junk, big]
    except OSError as e:
        print(f"attackers: redis wave: {e}", file=sys.stderr)
    hold(socks, WAVE_SECONDS - 1)


def main():
    http_port, redis_port = int(sys.argv[1]), int(sys.argv[2])
    while True:
        waves = [threading.Thread(target=http_wave, args=(http_port,), daemon=True),
                 threading.Thread(target=redis_wave, args=(redis_port,), daemon=True)]
        for w in waves:
            w.start()
        time.sleep(WAVE_SECONDS)


if __name__ == "__main__":
    main()
