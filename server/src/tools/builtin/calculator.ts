import { defineTool } from '../define-tool.js';
import { evaluate } from './expression.js';

export const calculator = defineTool({
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression exactly as written: numbers, + - * / % ^, parentheses, ' +
    'sqrt abs round floor ceil sin cos tan ln log exp min max, and the constants pi and e.',
  parameters: {
    type: 'object',
    properties: { expression: { type: 'string', description: 'For example "2 * (3 + 4) ^ 2"' } },
    required: ['expression'],
    additionalProperties: false,
  },
  execute: ({ expression }) => ({ expression, result: evaluate(expression) }),
});
