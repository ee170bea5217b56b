import { ToolError, defineTool } from '../define-tool.js';

const STEP_MS = 600;

/**
 * The demo's long-running tool: it "indexes" a list of sources one by one and reports
 * its progress after each, the way an MCP server's long tool does, so the chat shows a
 * bar that fills while it runs (and after a reload). Stop ends it at once.
 */
export const buildIndex = defineTool({
  name: 'build_index',
  description: 'Indexes a knowledge base, source by source (demo: takes a few seconds and reports progress).',
  timeoutMs: 60_000,
  parameters: {
    type: 'object',
    properties: {
      sources: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 1,
        maxItems: 20,
        description: 'Names of the sources to index',
      },
    },
    required: ['sources'],
    additionalProperties: false,
  },
  execute: async ({ sources }, { signal, progress }) => {
    for (const [done, source] of sources.entries()) {
      progress({ progress: done, total: sources.length, message: `Indexing ${source}` });
      await sleep(STEP_MS, signal);
    }
    progress({ progress: sources.length, total: sources.length, message: 'Done' });
    return { indexed: sources.length, documents: sources.length * 42 };
  },
});

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ToolError('stopped'));
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new ToolError('stopped'));
      },
      { once: true },
    );
  });
}
