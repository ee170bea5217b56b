/**
 * The official AG-UI packages the endpoint needs to answer (the input's schema, the
 * event encoder), loaded with the first AG-UI request: zod, the schemas and the protobuf
 * encoder cost a server whose `/ag-ui` nobody calls (most, and every test process) nothing.
 */
import type * as Schemas from '@ag-ui/core/schemas';
import type * as Encoder from '@ag-ui/encoder';

let loading: Promise<[typeof Schemas, typeof Encoder]> | undefined;

export async function agUiPackages() {
  const [schemas, encoder] = await (loading ??= Promise.all([
    import('@ag-ui/core/schemas'),
    import('@ag-ui/encoder'),
  ]));
  return { RunAgentInputSchema: schemas.RunAgentInputSchema, ...encoder };
}
