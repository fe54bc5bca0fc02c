// Prints, one a line, the images the Dockerfile and docker-compose.yml pull rather than build:
// the FROM images of the Dockerfile (ARG defaults resolved, build stages left out) and the
// `image:` of every compose service without `build:` (`${VAR:-default}` read as its default).
// scripts/ci/docker-standins.sh makes a stand-in for each of them.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

const root = new URL('../../', import.meta.url);
const images = new Set();

const args = new Map();
const stages = new Set();
for (const line of readFileSync(new URL('Dockerfile', root), 'utf8').split('\n')) {
  const [op = '', first = '', as = '', stage = ''] = line.trim().split(/\s+/);
  if (op.toUpperCase() === 'ARG' && first.includes('=')) {
    const [name = '', value = ''] = first.split('=');
    args.set(name, value);
  }
  if (op.toUpperCase() !== 'FROM') continue;
  const image = first.replace(/^\$\{?(\w+)\}?$/, (_, name) => args.get(name) ?? '');
  if (!stages.has(image) && image !== 'scratch') images.add(image);
  if (as.toUpperCase() === 'AS') stages.add(stage);
}

const compose = parse(readFileSync(new URL('docker-compose.yml', root), 'utf8'));
for (const service of Object.values(compose.services)) {
  if (service.build === undefined && typeof service.image === 'string') {
    images.add(service.image.replace(/\$\{\w+:-([^}]*)\}/g, '$1'));
  }
}

console.log([...images].join('\n'));
