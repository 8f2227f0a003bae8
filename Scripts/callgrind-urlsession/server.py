# Loopback HTTP/1.1 keep-alive server for the callgrind URLSession probe.
import json, sys, socketserver
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
users = [{"id": i, "name": f"User Number {i}", "email": f"user{i}@example.com", "active": i % 3 != 0,
          "roles": ["reader", "writer"] if i % 2 == 0 else ["reader"]} for i in range(1, 11)]
USERS = json.dumps(users, sort_keys=True, separators=(",", ":")).encode()
BIG = b"x" * 1_000_000
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def send_body(self, status, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra: self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        if self.path == "/users": self.send_body(200, USERS)
        elif self.path == "/redirect": self.send_body(302, b"moved", [("Location", "/users")])
        elif self.path == "/big": self.send_body(200, BIG)
        elif self.path == "/bigchunked":
            self.send_response(200); self.send_header("Transfer-Encoding", "chunked"); self.end_headers()
            for _ in range(100):
                c = b"y" * 10000
                self.wfile.write(b"%x\r\n%s\r\n" % (len(c), c))
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/slow":
            import time; time.sleep(5); self.send_body(200, USERS)
        else: self.send_body(404, b"{}")
ThreadingHTTPServer.daemon_threads = True
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
