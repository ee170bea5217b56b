import { defineTool, ToolError } from '../define-tool.js';

export const currentTime = defineTool({
  name: 'get_time',
  description: 'The current date and time, in an IANA time zone such as "Europe/Paris" (UTC by default).',
  parameters: {
    type: 'object',
    properties: { timezone: { type: 'string', description: 'IANA time zone name' } },
    additionalProperties: false,
  },
  execute: ({ timezone = 'UTC' }) => {
    let formatted: string;
    try {
      formatted = new Intl.DateTimeFormat('en-GB', {
        timeZone: timezone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(new Date());
    } catch {
      throw new ToolError(`unknown time zone "${timezone}"; use an IANA name such as "Asia/Tokyo"`);
    }
    return { timezone, now: formatted, iso: new Date().toISOString() };
  },
});
