/**
 * The AI SDK's UI message stream (https://ai-sdk.dev/docs/ai-sdk-ui/stream-protocol): a
 * chat route of a site's own (`streamText(...).toUIMessageStreamResponse()`) answers our
 * turns. README.md says how its chunks become frames.
 */
import { unreadable } from '../core/agent-errors.js';
import { defineUpstreamProtocol } from '../core/protocol.js';
import { AiSdkRunReader } from './run-chunks.js';
import { chatRequest } from './ui-messages.js';

/** The header a UI message stream carries, and the one version of it read here. */
const STREAM_HEADER = 'x-vercel-ai-ui-message-stream';

export const aiSdk = defineUpstreamProtocol({
  name: 'ai-sdk',
  body: chatRequest,
  // A route that names another version of the stream is not read as this one; one that
  // forgot the header is read, and its chunks checked one by one.
  checkResponse: (headers) => {
    const version = headers.get(STREAM_HEADER);
    if (version !== null && version.trim() !== 'v1')
      throw unreadable(
        'ai-sdk',
        `a UI message stream of version "${version}" (${STREAM_HEADER}; v1 is read)`,
      );
  },
  reader: () => new AiSdkRunReader(),
});
