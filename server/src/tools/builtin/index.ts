/** The tools the demo and a default server offer. */
import type { ToolDefinition } from '../define-tool.js';
import { buildIndex } from './build-index.js';
import { calculator } from './calculator.js';
import { deleteFile } from './delete-file.js';
import { search } from './search.js';
import { currentTime } from './time.js';
import { weather } from './weather.js';
import { writeFile } from './write-file.js';

export const builtinTools = (): ToolDefinition[] => [
  weather,
  currentTime,
  calculator,
  writeFile,
  deleteFile,
  search,
  buildIndex,
];
