/**
 * Which tool calls wait for a user's approval: the `approval` block of the
 * configuration, by the tool's name as the model sees it, `*` matching any run of
 * characters. `always` asks every time, `session` asks until the user allows the tool for
 * the rest of the conversation, `never` runs it without asking. A tool the rules do not
 * name follows its own default (`ToolDefinition.approval`), else runs without asking.
 */

export type ApprovalPolicy = 'always' | 'session' | 'never';
export type ApprovalRules = Readonly<Record<string, ApprovalPolicy>>;

/**
 * The policy of a tool: an exact name wins over patterns; among patterns, the longest
 * (the most specific) wins, so `{"*": "always", "search_*": "never"}` asks for everything
 * but searches.
 */
export function approvalPolicyFor(rules: ApprovalRules, toolName: string): ApprovalPolicy | undefined {
  const exact = rules[toolName];
  if (exact) return exact;
  let best: { length: number; policy: ApprovalPolicy } | undefined;
  for (const [pattern, policy] of Object.entries(rules)) {
    if (!pattern.includes('*') || !globToRegExp(pattern).test(toolName)) continue;
    if (!best || pattern.length > best.length) best = { length: pattern.length, policy };
  }
  return best?.policy;
}

/**
 * The policy a call of `toolName` runs under: the rules first, then the tool's own
 * default (`tool`, the registry's definition), else `never`.
 */
export function effectivePolicy(
  rules: ApprovalRules,
  toolName: string,
  tool: { approval?: 'always' | 'session' } | undefined,
): ApprovalPolicy {
  return approvalPolicyFor(rules, toolName) ?? tool?.approval ?? 'never';
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
