import { ToolError, defineTool } from '../define-tool.js';

/**
 * The demo's risky tool: it removes a file from the session's workspace, so by default
 * a user approves it first (once for the conversation, if they allow it).
 */
export const deleteFile = defineTool({
  name: 'delete_file',
  description: "Deletes a file from the session's workspace. The user is asked to approve it first.",
  approval: 'session',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, description: 'Relative path, e.g. "notes.md"' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  execute: ({ path }, { workspace }) => {
    if (!workspace.remove(path)) throw new ToolError(`there is no file "${path}" to delete`);
    return { deleted: path, files: workspace.list().length };
  },
});
