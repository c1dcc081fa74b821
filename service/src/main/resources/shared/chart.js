'use strict';
// One endpoint's last 24 hours as bars, one an hour: delivered attempts below, failed ones stacked on top.
// Drawn as inline SVG from the /stats answer; the totals are the chart's text alternative.
function attemptsChart(stats) {
  const ns = 'http://www.w3.org/2000/svg';
  const width = 240, height = 40, bar = width / stats.buckets.length;
  const highest = Math.max(1, ...stats.buckets.map(b => b.delivered + b.failed));
  const delivered = stats.buckets.reduce((sum, b) => sum + b.delivered, 0);
  const failed = stats.buckets.reduce((sum, b) => sum + b.failed, 0);
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('class', 'chart');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('role', 'img');
  const summary = `last 24 hours: ${delivered} delivered, ${failed} failed`;
  svg.setAttribute('aria-label', summary);
  const title = document.createElementNS(ns, 'title');
  title.textContent = summary;
  svg.appendChild(title);
  stats.buckets.forEach((b, i) => {
    let top = height;
    for (const [kind, count] of [['delivered', b.delivered], ['failed', b.failed]]) {
      if (count === 0) continue;
      const h = Math.max(1, (count / highest) * height);
      const rect = document.createElementNS(ns, 'rect');
      rect.setAttribute('class', kind);
      rect.setAttribute('x', i * bar + 1);
      rect.setAttribute('width', bar - 2);
      rect.setAttribute('y', top - h);
      rect.setAttribute('height', h);
      top -= h;
      svg.appendChild(rect);
    }
  });
  return svg;
}
