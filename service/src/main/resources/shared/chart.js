"use strict";
// The chart of an endpoint's last 24 hours, shared by the admin page and the portal: one bar per hour, delivered
// attempts in green with failed ones stacked above in red, drawn as inline SVG by hand (the portal's CSP allows no
// script from elsewhere, and a chart library would be most of the page). Colours are SVG attributes, not style, so
// the CSP's default style rules do not apply. The totals are the chart's title and aria-label, for screen readers
// and for anyone hovering; each bar's title names its hour.

const RELAYBOX_CHART_COLOURS = { delivered: "#15803d", failed: "#b91c1c", axis: "#c5cbd6", text: "#5b6475" };

/**
 * stats: {"from", "to", "buckets": [{"start", "delivered", "failed"}]}, oldest first (the /stats answer).
 * options: {label: what the chart is of, width, height (of the bars), axis: whether to label the time axis}.
 * Returns an <svg> element; every string in it is set as text, never parsed as markup.
 */
function relayboxChart(stats, options) {
  const o = Object.assign({ label: "", width: 240, height: 36, axis: false }, options);
  const buckets = (stats && stats.buckets) || [];
  let delivered = 0;
  let failed = 0;
  let peak = 0;
  buckets.forEach((b) => {
    delivered += b.delivered;
    failed += b.failed;
    peak = Math.max(peak, b.delivered + b.failed);
  });
  const summary = (o.label ? o.label + ": " : "") + delivered + " delivered, " + failed +
      " failed in the last 24 hours";
  const axisHeight = o.axis ? 14 : 0;
  const svg = svgElement("svg", {
    width: o.width, height: o.height + axisHeight + 1, viewBox: "0 0 " + o.width + " " + (o.height + axisHeight + 1),
    role: "img", "aria-label": summary, class: "relaybox-chart",
    "data-delivered": delivered, "data-failed": failed,
  });
  svg.appendChild(svgText("title", summary));
  const slot = buckets.length === 0 ? o.width : o.width / buckets.length;
  const scale = peak === 0 ? 0 : o.height / peak;
  buckets.forEach((b, i) => {
    const x = i * slot + 1;
    const width = Math.max(1, slot - 2);
    const bar = svgElement("g", { class: "bucket" });
    bar.appendChild(svgText("title", hourOf(b.start) + ": " + b.delivered + " delivered, " + b.failed + " failed"));
    const deliveredHeight = b.delivered * scale;
    const failedHeight = b.failed * scale;
    // An empty hour still gets a hover target, so every hour can say it was empty.
    bar.appendChild(svgElement("rect", { x, y: 0, width, height: o.height, fill: "transparent" }));
    if (b.delivered > 0) {
      bar.appendChild(svgElement("rect", {
        x, y: o.height - deliveredHeight, width, height: deliveredHeight,
        fill: RELAYBOX_CHART_COLOURS.delivered, class: "delivered",
      }));
    }
    if (b.failed > 0) {
      bar.appendChild(svgElement("rect", {
        x, y: o.height - deliveredHeight - failedHeight, width, height: failedHeight,
        fill: RELAYBOX_CHART_COLOURS.failed, class: "failed",
      }));
    }
    svg.appendChild(bar);
  });
  svg.appendChild(svgElement("line", {
    x1: 0, y1: o.height + 0.5, x2: o.width, y2: o.height + 0.5, stroke: RELAYBOX_CHART_COLOURS.axis,
  }));
  if (o.axis) {
    const label = (x, anchor, text) => {
      const t = svgText("text", text);
      [["x", x], ["y", o.height + axisHeight], ["text-anchor", anchor], ["font-size", 10],
        ["fill", RELAYBOX_CHART_COLOURS.text]].forEach(([k, v]) => t.setAttribute(k, v));
      return t;
    };
    svg.appendChild(label(0, "start", "24 h ago"));
    svg.appendChild(label(o.width, "end", "now"));
  }
  return svg;
}

function svgElement(name, attributes) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", name);
  Object.keys(attributes).forEach((k) => e.setAttribute(k, String(attributes[k])));
  return e;
}

function svgText(name, text) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", name);
  e.textContent = text;
  return e;
}

function hourOf(instant) {
  return instant ? instant.slice(0, 13).replace("T", " ") + ":00 UTC" : "";
}
