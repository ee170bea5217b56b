import { defineTool } from '../define-tool.js';
import { corpus, type CorpusDocument } from './search-corpus.js';

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** Term-frequency score with an inverse document frequency weight; titles count double. */
function score(document: CorpusDocument, terms: string[], documentFrequency: Map<string, number>): number {
  const body = words(`${document.title} ${document.title} ${document.text}`);
  let total = 0;
  for (const term of terms) {
    const hits = body.filter((w) => w === term || (term.length > 3 && w.startsWith(term))).length;
    if (hits)
      total += (1 + Math.log(hits)) * Math.log(1 + corpus.length / (documentFrequency.get(term) ?? 1));
  }
  return total;
}

export const search = defineTool({
  name: 'search_docs',
  description: 'Searches the Aalis Chat notes (a small bundled text) and returns the best matching passages.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 5 },
    },
    required: ['query'],
    additionalProperties: false,
  },
  execute: ({ query, limit = 3 }) => {
    const terms = [...new Set(words(query))];
    const documentFrequency = new Map(
      terms.map((t) => [t, corpus.filter((d) => words(`${d.title} ${d.text}`).includes(t)).length || 1]),
    );
    const results = corpus
      .map((document) => ({ document, score: score(document, terms, documentFrequency) }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ document }) => ({ title: document.title, text: document.text }));
    return { query, results };
  },
});
