/**
 * A strict reader of the Prometheus text exposition format (0.0.4): every line
 * is a HELP, a TYPE or a sample; every sample belongs to a declared family
 * (histograms through _bucket/_sum/_count); label values are quoted and
 * escaped; values are floats. Throws on the first line that is not valid.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** the value of the one sample matching name and (a subset of) labels */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})?\\s+(\\S+)(\\s+-?\\d+)?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('exposition must end with a newline');
  for (const [index, line] of lines.slice(0, -1).entries()) {
    const where = `line ${index + 1}: ${line}`;
    if (line.startsWith('# HELP ')) {
      if (!new RegExp(`^# HELP ${NAME} `).test(line)) throw new Error(`bad HELP, ${where}`);
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const match = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
      if (!match) throw new Error(`bad TYPE, ${where}`);
      types.set(match[1], match[2]);
      continue;
    }
    if (line.startsWith('#') || line === '') continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad sample, ${where}`);
    const [, name, , labelText, valueText] = match;
    const labels: Record<string, string> = {};
    if (labelText) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const start = LABEL.lastIndex;
        const label = LABEL.exec(labelText);
        if (!label || LABEL.lastIndex === start) throw new Error(`bad labels, ${where}`);
        labels[label[1]] = label[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      }
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : valueText === 'NaN' ? NaN : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value, ${where}`);
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    const type = types.get(family);
    if (!type) throw new Error(`sample of an undeclared family, ${where}`);
    if (family !== name && type !== 'histogram' && type !== 'summary') throw new Error(`suffix on a ${type}, ${where}`);
    if (name.endsWith('_bucket') && type === 'histogram' && labels.le === undefined) throw new Error(`bucket without le, ${where}`);
    samples.push({ name: name, labels, value });
  }
  return {
    types,
    samples,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}
