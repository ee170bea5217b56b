// Types for the part of agent-script.mjs that tests read: what the example agents do for a question.
export interface Plan {
  toolName: 'get_weather' | 'write_note';
  args: Record<string, unknown>;
  /** What the tool returns, the same every time for the same question. */
  run(): Record<string, unknown>;
  answer(result: Record<string, unknown>): string;
}

export function plan(question: string): Plan;
