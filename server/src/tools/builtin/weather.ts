/**
 * The demo's weather tool. This server reaches no weather service, so it answers with
 * plausible, repeatable figures made from the place's name, and says so in the result:
 * the model must never present them as a real forecast.
 */
import { createHash } from 'node:crypto';
import { defineTool } from '../define-tool.js';

const CONDITIONS = ['clear', 'partly cloudy', 'overcast', 'light rain', 'showers', 'windy', 'fog', 'snow'];

export const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a place (demo data: no weather service is configured).',
  parameters: {
    type: 'object',
    properties: {
      location: { type: 'string', minLength: 1, description: 'City and country, e.g. "Paris, France"' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['location'],
    additionalProperties: false,
  },
  execute: ({ location, unit = 'celsius' }) => {
    const digest = createHash('sha256').update(location.trim().toLowerCase()).digest();
    const celsius = Math.round(((digest[0]! / 255) * 40 - 5) * 10) / 10;
    return {
      location,
      temperature: unit === 'celsius' ? celsius : Math.round((celsius * 9) / 5 + 32),
      unit,
      conditions: CONDITIONS[digest[1]! % CONDITIONS.length],
      humidity: 30 + (digest[2]! % 60),
      source: 'demo data, not a real forecast',
    };
  },
});
