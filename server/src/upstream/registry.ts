/**
 * Every protocol an agent running elsewhere can answer our turns by, in one list. A
 * protocol is a folder (`upstream/<name>/`) holding all of its knowledge: the request it
 * posts for a turn, how its events are checked and read into the shared agent events,
 * and a README; its `index.ts` exports its definition (core/protocol.ts). Adding one
 * touches its folder and one line here. Unlike a provider (providers/), such an agent
 * runs its own tools and loop: it is a `TurnAgent`, not a model.
 */
import { agUi } from './ag-ui/index.js';
import { aiSdk } from './ai-sdk/index.js';
import { UpstreamAgent, type UpstreamAgentOptions } from './core/upstream-agent.js';

export const UPSTREAM_PROTOCOLS = [agUi, aiSdk] as const;

export type UpstreamProtocolName = (typeof UPSTREAM_PROTOCOLS)[number]['name'];

export const UPSTREAM_PROTOCOL_NAMES: readonly UpstreamProtocolName[] = UPSTREAM_PROTOCOLS.map((p) => p.name);

/** An upstream agent as a host configures one: the protocol by name, and the rest of the agent's options. */
export interface UpstreamAgentSettings extends Omit<UpstreamAgentOptions, 'protocol' | 'logger'> {
  protocol: UpstreamProtocolName;
}

/** The agent the settings describe; `logger` takes the detail of its errors. */
export function createUpstreamAgent(
  settings: UpstreamAgentSettings,
  logger: UpstreamAgentOptions['logger'],
): UpstreamAgent {
  const protocol = UPSTREAM_PROTOCOLS.find((p) => p.name === settings.protocol);
  if (!protocol)
    throw new Error(`no upstream protocol ${settings.protocol}: ${UPSTREAM_PROTOCOL_NAMES.join(', ')}`);
  return new UpstreamAgent({ ...settings, protocol, logger });
}
