/** An error a tool throws on purpose: its message goes to the model as is. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
