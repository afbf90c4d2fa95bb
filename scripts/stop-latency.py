#!/usr/bin/env python3
"""How soon a USI engine answers `stop`: `go infinite` on three positions, `stop` after each of
the given delays (ms), the time until its `bestmove` (and the depth it had reached).

    python3 scripts/stop-latency.py target/release/council-engine 20,200,1000,3000

On a loaded machine the answer waits for a core as much as for the engine; to see the engine's
own part, run it at real-time priority through a wrapper (`exec chrt -f 10 ENGINE "$@"`).
"""
import subprocess, time, sys, select, os
eng = sys.argv[1]
delays = [int(x) for x in sys.argv[2].split(",")]
positions = ["startpos", "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
             "sfen 8l/1l+R2P3/p2pBG1pp/kps1p4/Nn1P2G2/P1P1P2PP/1PS6/1KSG3+r1/LN2+p3L w Sbgn2p 124"]
p = subprocess.Popen([eng], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
def send(s): p.stdin.write((s+"\n").encode())
buf=b""
def readline(timeout=30):
    global buf
    end=time.monotonic()+timeout
    while b"\n" not in buf:
        r,_,_=select.select([p.stdout],[],[],max(0,end-time.monotonic()))
        if not r: return None
        buf+=os.read(p.stdout.fileno(),65536)
    l,buf=buf.split(b"\n",1); return l.decode()
send("usi")
while readline()!="usiok": pass
send("isready")
while readline()!="readyok": pass
worst=0
for pos in positions:
    for d in delays:
        send("usinewgame"); send("position "+pos); send("go infinite")
        time.sleep(d/1000)
        last=None
        # drain
        t=time.monotonic(); send("stop")
        while True:
            l=readline()
            if l is None: print("no bestmove"); break
            if l.startswith("info") and " depth " in l: last=l.split(" depth ")[1].split()[0]
            if l.startswith("bestmove"): break
        lat=(time.monotonic()-t)*1000; worst=max(worst,lat)
        print(f"{pos[:20]:20} after {d:5} ms: bestmove {lat:6.2f} ms after stop (depth {last})")
print(f"worst {worst:.2f} ms")
send("quit")
