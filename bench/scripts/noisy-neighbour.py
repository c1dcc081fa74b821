#!/usr/bin/env python3
"""Noisy neighbour on the real Temporal server: how long one quiet tenant's event waits while another tenant's
backlog keeps the task queue busy, with the engine's fairness on or off.

    python3 bench/scripts/noisy-neighbour.py LABEL service/target/relaybox.jar on|off [BACKLOG]

Starts the Temporal CLI's dev server (SQLite as embedded mode runs it; with `on`, matching.enableFairness=true as
embedded mode starts it), a receiver that answers tenant "noisy" after 1 s and tenant "quiet" at once, and Relaybox
from the jar against them (its embedded PostgreSQL, portal.maxInFlightPerEndpoint 4). Posts BACKLOG (2000) events
for "noisy", waits 30 s for the backlog to settle into waiting workflows, posts one event for "quiet" and prints
how long it took to arrive. State and logs go to /tmp/noisy-neighbour/LABEL. Ports 7421, 18180, 18181, 19100 and
54411 must be free.
"""
import base64, concurrent.futures, http.server, json, os, secrets, shutil, signal, socket, socketserver, subprocess, sys, threading, time, urllib.request
def start_receiver(port, delay, quiet_at):
    """Answers /slow after `delay` seconds, anything else at once; records when the first quiet event came."""
    lock = threading.Lock()
    slow = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get('content-length', 0)))
            if self.path.startswith('/slow'):
                time.sleep(delay)
                with lock:
                    slow[0] += 1
            else:
                with lock:
                    quiet_at.setdefault('at', time.time())
                    quiet_at.setdefault('slow', slow[0])
            self.send_response(200)
            self.send_header('content-length', '0')
            self.end_headers()

        def log_message(self, *args):
            pass

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        request_queue_size = 256

    server = Server(('127.0.0.1', port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


label, jar, fairness = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3] == 'on'
CONFIG = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'config.yml')
backlog = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
base = f'/tmp/noisy-neighbour/{label}'; shutil.rmtree(base, ignore_errors=True); os.makedirs(base)
env = dict(os.environ)
dev = [os.environ.get('TEMPORAL_CLI', 'temporal'), 'server', 'start-dev', '--ip', '127.0.0.1', '--port', '7421', '--headless', '--db-filename', f'{base}/t.db',
       '--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal', '--log-level', 'warn']
for a, t in [('RelayDirection','Keyword'),('RelayStatus','Keyword'),('RelayEventType','Keyword'),('RelayAggregate','Keyword'),('RelayPeer','Keyword'),('RelayEndpoints','KeywordList'),('RelayAttempts','Int')]:
    dev += ['--search-attribute', f'{a}={t}']
if fairness:
    dev += ['--dynamic-config-value', 'matching.enableFairness=true']
procs = []
procs.append(subprocess.Popen(dev, env=env, stdout=open(f'{base}/dev.log','w'), stderr=subprocess.STDOUT))
quiet_at = {}
receiver = start_receiver(19100, 1.0, quiet_at)
admin, producer = secrets.token_hex(32), secrets.token_hex(32)
env.update(TEMPORAL_ADDRESS='127.0.0.1:7421', RELAYBOX_ADMIN_TOKENS=admin, RELAYBOX_PRODUCER_TOKENS=producer,
           RELAYBOX_SECRETS_KEY=base64.b64encode(os.urandom(32)).decode(), SHOP_WEBHOOK_SECRET='whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
           ALLOWED_PRIVATE_NETWORKS='127.0.0.0/8', TENANT_ALLOWED_PRIVATE_NETWORKS='127.0.0.0/8', PORT='18180', ADMIN_PORT='18181',
           EMBEDDED_POSTGRES_PORT='54411', PORTAL_MAX_IN_FLIGHT_PER_ENDPOINT='4')
def busy(port):
    with socket.socket() as so:
        return so.connect_ex(('127.0.0.1', port)) == 0
for _ in range(120):
    if not any(busy(p) for p in (18180, 18181, 54411)): break
    time.sleep(1)
else:
    raise SystemExit('ports still busy')
time.sleep(4)
procs.append(subprocess.Popen(['java', f'-Ddw.embeddedPostgres.dataDirectory={base}/pg', '-jar', jar, 'server', CONFIG],
                              env=env, cwd=base, stdout=open(f'{base}/relaybox.log','w'), stderr=subprocess.STDOUT))
def call(method, path, body, token):
    req = urllib.request.Request('http://127.0.0.1:18180' + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={'authorization': 'Bearer ' + token, 'content-type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as r: return r.status, r.read()
try:
    for _ in range(240):
        try:
            urllib.request.urlopen('http://127.0.0.1:18181/healthcheck', timeout=2); break
        except Exception: time.sleep(1)
    for t in ['noisy', 'quiet']:
        call('POST', '/admin/tenants', {'key': t, 'name': t}, admin)
        call('POST', '/admin/endpoints', {'name': 'hooks', 'url': f'http://127.0.0.1:19100/{"slow" if t == "noisy" else "quiet"}', 'tenant': t, 'maxInFlight': 1000}, admin)
    def post(i, t='noisy'):
        return call('POST', '/outbox', {'eventType': 'order.created', 'aggregateType': 'order', 'aggregateId': f'{t}-{i}', 'payload': {'n': i}, 'tenant': t}, producer)[0]
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        codes = list(ex.map(post, range(backlog)))
    print(label, 'backlog posted', codes.count(202), flush=True)
    time.sleep(30)  # steady state: every noisy row dispatched, its workflows waiting on the endpoint's slots
    t0 = time.time(); post(1, 'quiet')
    for _ in range(6000):
        if 'at' in quiet_at: break
        time.sleep(0.1)
    print(label, 'quiet waited %.1f s; noisy delivered by then %d' % (quiet_at['at'] - t0, quiet_at['slow']), flush=True)
finally:
    for p in reversed(procs):
        p.send_signal(signal.SIGTERM)
    for p in procs:
        try: p.wait(60)
        except Exception: p.kill()
    receiver.shutdown()
    subprocess.run(['pkill', '-f', f'{base}/pg'])
    time.sleep(5)
