// NOT Grafana: the CI stand-in for grafana/grafana (scripts/ci/docker-standins.sh). Reads the
// provisioning and home dashboard docker-compose.yml mounts (a missing or broken file exits 1,
// so the container shows it), probes the provisioned datasource, and answers /api/health on :3000.
import fs from 'node:fs';
import http from 'node:http';
import { setInterval, setTimeout } from 'node:timers';

const log = (msg, extra = {}) =>
  console.log(JSON.stringify({ placeholder: 'grafana', msg, ...extra }));
const prov = '/etc/grafana/provisioning';
const ds = fs.readFileSync(`${prov}/datasources/prometheus.yml`, 'utf8');
fs.readFileSync(`${prov}/dashboards/makerd.yml`, 'utf8');
const url = /^\s*url:\s*(\S+)/m.exec(ds)?.[1];
const uid = /^\s*uid:\s*(\S+)/m.exec(ds)?.[1];
const home = process.env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH;
const dash = JSON.parse(fs.readFileSync(home, 'utf8'));
log('home dashboard', {
  path: home,
  title: dash.title,
  panels: dash.panels?.length,
  datasource_uid: uid,
  referenced: JSON.stringify(dash).includes(`"uid":"${uid}"`),
});
const probe = () =>
  http
    .get(`${url}/-/ready`, (r) => {
      log('datasource probe', { url, status: r.statusCode });
      r.resume();
    })
    .on('error', (e) => log('datasource probe', { url, error: e.code }));
setTimeout(probe, 3000);
setInterval(probe, 30000);
http
  .createServer((req, res) => {
    res.writeHead(req.url === '/api/health' ? 200 : 404);
    res.end('{"placeholder":true}');
  })
  .listen(3000, '0.0.0.0', () => log('listening', { port: 3000 }));
process.on('SIGTERM', () => process.exit(0));
