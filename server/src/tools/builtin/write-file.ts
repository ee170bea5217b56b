import { defineTool } from '../define-tool.js';

export const writeFile = defineTool({
  name: 'write_file',
  description: "Writes a text file into the session's workspace (kept in memory for this chat).",
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, description: 'Relative path, e.g. "notes/plan.md"' },
      content: { type: 'string' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  execute: ({ path, content }, { workspace }) => {
    const written = workspace.write(path, content);
    return { ...written, files: workspace.list().length };
  },
});
