// npm run models:tiny -- DIR: writes the tiny test model into DIR/<model id>/ and prints the model id as the last
// line, so the whole semantic path runs with no download:
//   CONTEXTPACK_MODELS_DIR=DIR contextpack embed --model <id>
// The vectors are random word vectors: this exercises loading, embedding, storage and hybrid retrieval, not quality.
import { resolve } from 'node:path';
import { buildTinyModel, TINY_TEST_MODEL } from './tiny-model.ts';

const dir = process.argv[2];
if (!dir || dir.startsWith('-')) {
  process.stderr.write('usage: npm run models:tiny -- DIR   (then: CONTEXTPACK_MODELS_DIR=DIR contextpack embed --model <printed id>)\n');
  process.exit(2);
}
const root = resolve(dir);
const model = await buildTinyModel({ root, modelId: TINY_TEST_MODEL.modelId, dim: TINY_TEST_MODEL.dim, seed: TINY_TEST_MODEL.seed });
process.stderr.write(
  `wrote the tiny TEST model (${model.dims}-d, random word vectors: not for real use) to ${model.modelDir}\n` +
    `use it with: CONTEXTPACK_MODELS_DIR=${root} contextpack embed --model ${model.modelId}\n` +
    `(keep DIR apart from resources/models and the user-data models folder: it answers to the real model's id)\n`,
);
process.stdout.write(`${model.modelId}\n`);
