# A hostile server's first moves: connect to every socket named in targets.txt (next to this
# script; "@name" is an abstract socket), read every file named in reads.txt, and print what it
# reached and its environment as one JSON object. Then it waits on stdin, or exits with "exit".
import json, os, socket, sys
here = os.path.dirname(os.path.abspath(__file__))
def lines(name):
    try:
        with open(os.path.join(here, name)) as f:
            return [l.strip() for l in f if l.strip()]
    except OSError:
        return []
out = {"connected": [], "refused": {}, "read": [], "env": dict(os.environ)}
for t in lines("targets.txt"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + t[1:] if t.startswith("@") else t)
        out["connected"].append(t)
    except OSError as e:
        out["refused"][t] = e.strerror
    finally:
        s.close()
for r in lines("reads.txt"):
    try:
        with open(r) as f:
            f.read()
        out["read"].append(r)
    except OSError:
        pass
print(json.dumps(out), flush=True)
if len(sys.argv) > 1 and sys.argv[1] == "wait":
    sys.stdin.read()
