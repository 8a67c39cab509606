#!/usr/bin/env python3
"""serve_probe.py - hostile and normal HTTP clients for tests/e2e/serve_limits.sh.

Each subcommand prints one JSON line of measured facts (seconds, statuses);
the shell script decides what passes. Real sockets against a real server.

  idle PORT N          open N connections that send nothing, then time a
                       normal GET /api/runs on a fresh connection
  trickle PORT N GAP   open N connections that send one header byte every GAP
                       seconds, then time a normal GET /api/runs
  params PORT N [short]  one GET with N query parameters (a0=1&a1=1..., or
                       a&a&... with "short"): status and time
  deadline PORT GAP    one connection trickling a byte every GAP s: when does
                       the server close it (a total deadline, not per byte)?
  get PORT PATH        time one GET (status, seconds)
  mkbig FILE MB        writes a Kineto trace (.json.gz) of MB megabytes of
                       JSON, mostly profiler instant markers ("ph":"i",
                       which the importer reads and does not keep): slow to
                       load, 1/100 of that on disk, little memory. Its gzip
                       members repeat, so it is written in a second or two.
  slowload PORT RUN W1,W2.. SMALLRUN SMALLW WAIT
                       asks for the overview of each big worker W1.. of RUN
                       (they start loading), keeps asking for them every
                       0.3 s, waits WAIT seconds, then times the overview of
                       SMALLRUN/SMALLW from its first request to its 200;
                       also prints the last 202 answers of the first big one
                       and of the small one, and /api/loads meanwhile
"""
import json
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
REQ = b"GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def connect(port, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((HOST, port))
    return s


def status_of(s, limit):
    """Reads until the status line arrives; (status or None, seconds)."""
    t0 = time.monotonic()
    buf = b""
    s.settimeout(0.2)
    while time.monotonic() - t0 < limit:
        try:
            d = s.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            break
        if not d:
            break
        buf += d
        if b"\r\n" in buf:
            break
    line = buf.split(b"\r\n", 1)[0].split()
    st = int(line[1]) if len(line) >= 2 and line[1].isdigit() else None
    return st, time.monotonic() - t0


def timed_get(port, path="/api/runs", limit=20.0):
    """Connects, sends a GET, waits for its status: (status, seconds)."""
    t0 = time.monotonic()
    try:
        s = connect(port, timeout=limit)
    except OSError as e:
        return None, time.monotonic() - t0, str(e)
    try:
        s.sendall(REQ.replace(b"/api/runs", path.encode()))
        st, _ = status_of(s, limit - (time.monotonic() - t0))
    finally:
        s.close()
    return st, time.monotonic() - t0, None


def hold(port, n):
    socks = []
    for _ in range(n):
        try:
            socks.append(connect(port, timeout=2.0))
        except OSError:
            break
    return socks


def cmd_idle(port, n):
    socks = hold(port, n)
    time.sleep(1.0)  # the server has seen them all
    st, sec, why = timed_get(port)
    shed = 0
    for s in socks:  # how many of ours the server dropped
        s.settimeout(0.01)
        try:
            if s.recv(1) == b"":
                shed += 1
        except socket.timeout:
            pass
        except OSError:
            shed += 1
        s.close()
    return {"opened": len(socks), "status": st, "seconds": round(sec, 3), "error": why,
            "shed": shed}


def cmd_trickle(port, n, gap):
    socks = hold(port, n)
    stop = threading.Event()

    def drip():
        i = 0
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(REQ[i % 16:i % 16 + 1])
                except OSError:
                    pass
            i += 1
            stop.wait(gap)

    th = threading.Thread(target=drip, daemon=True)
    th.start()
    time.sleep(1.0)
    st, sec, why = timed_get(port)
    stop.set()
    th.join()
    for s in socks:
        s.close()
    return {"opened": len(socks), "status": st, "seconds": round(sec, 3), "error": why}


def cmd_params(port, n, short=False):
    q = "&".join("a" if short else "a%d=1" % i for i in range(n))
    s = connect(port)
    t0 = time.monotonic()
    s.sendall(("GET /api/runs?%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % q).encode())
    st, _ = status_of(s, 40.0)
    s.close()
    return {"params": n, "bytes": len(q), "status": st,
            "seconds": round(time.monotonic() - t0, 3)}


def cmd_deadline(port, gap):
    s = connect(port)
    t0 = time.monotonic()
    closed = None
    i = 0
    s.settimeout(gap)
    while time.monotonic() - t0 < 90:
        try:
            s.send(b"GET /api/runs HTTP/1.1\r\nX-Slow: "[i:i + 1] or b"a")
        except OSError:
            closed = time.monotonic() - t0
            break
        i += 1
        try:
            d = s.recv(4096)
            if not d or d:  # EOF, or an answer (a 408): the server ended it
                closed = time.monotonic() - t0
                break
        except socket.timeout:
            pass
        except OSError:
            closed = time.monotonic() - t0
            break
    s.close()
    return {"gap": gap, "bytes_sent": i, "closed_after": None if closed is None else round(closed, 2)}


def http_get(port, path, timeout=10.0):
    """(status, parsed JSON body or None) of one GET on a fresh connection."""
    import http.client
    c = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        c.request("GET", path, headers={"Host": "%s:%d" % (HOST, port)})
        r = c.getresponse()
        body = r.read()
        try:
            doc = json.loads(body)
        except ValueError:
            doc = None
        return r.status, doc
    finally:
        c.close()


def cmd_slowload(port, run, bigs, srun, sw, wait):
    from urllib.parse import urlencode

    def view(r, w):
        return "/api/view?" + urlencode({"run": r, "worker": w, "view": "overview"})

    stop = threading.Event()
    last = {}

    def keep_asking():
        while not stop.is_set():
            for w in bigs:
                try:
                    last[w] = http_get(port, view(run, w))
                except OSError as e:
                    last[w] = (None, str(e))
            stop.wait(0.3)

    th = threading.Thread(target=keep_asking, daemon=True)
    th.start()
    time.sleep(wait)
    loads = http_get(port, "/api/loads")
    t0 = time.monotonic()
    small = None
    small_202 = None
    while time.monotonic() - t0 < 120:
        st, doc = http_get(port, view(srun, sw))
        if st != 202:
            small = st
            break
        small_202 = doc
        time.sleep(0.05)
    sec = time.monotonic() - t0
    stop.set()
    th.join()
    big = last.get(bigs[0], (None, None))
    return {"small_status": small, "small_seconds": round(sec, 3),
            "small_last_202": small_202, "big_status": big[0], "big_last": big[1],
            "loads": loads}


def cmd_mkbig(out, mb):
    import gzip
    # ten timestamps in turn: gzip -1 packs about 100 bytes of JSON in one,
    # half the importer's --max-ratio (200)
    ev = ['{"name":"Iteration Start: PyTorch Profiler","ph":"i","s":"g","pid":"Traces",'
          '"tid":"PyTorch Profiler","ts":%d}' % (1000 + i % 10) for i in range(10000)]
    chunk = ",".join(ev)
    head = ('{"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"user_annotation",'
            '"name":"ProfilerStep#1","pid":1,"tid":1,"ts":1,"dur":80000},'
            '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":2,"dur":5},')
    member = gzip.compress(("," + chunk).encode(), 1)
    n = max(1, mb * 1000000 // len(chunk))
    with open(out, "wb") as f:
        f.write(gzip.compress((head + chunk).encode(), 1))
        for _ in range(n - 1):
            f.write(member)
        f.write(gzip.compress(b"]}", 1))
    return {"file": out, "json_bytes": n * (len(chunk) + 1) + len(head)}


def main(argv):
    if argv[1] == "mkbig":
        print(json.dumps(cmd_mkbig(argv[2], int(argv[3]))))
        return
    cmd, port = argv[1], int(argv[2])
    if cmd == "idle":
        out = cmd_idle(port, int(argv[3]))
    elif cmd == "trickle":
        out = cmd_trickle(port, int(argv[3]), float(argv[4]))
    elif cmd == "params":
        out = cmd_params(port, int(argv[3]), len(argv) > 4 and argv[4] == "short")
    elif cmd == "deadline":
        out = cmd_deadline(port, float(argv[3]))
    elif cmd == "slowload":
        out = cmd_slowload(port, argv[3], argv[4].split(","), argv[5], argv[6], float(argv[7]))
    elif cmd == "get":
        st, sec, why = timed_get(port, argv[3])
        out = {"status": st, "seconds": round(sec, 3), "error": why}
    else:
        sys.exit("usage: serve_probe.py idle|trickle|params|deadline|get|slowload PORT ... "
                 "| mkbig FILE MB")
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
