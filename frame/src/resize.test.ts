import { expect, test } from 'vitest';
import { observeHeight } from './resize';

test('reports the rounded-up height once per change', () => {
  const element = document.createElement('div');
  let height = 100.2;
  element.getBoundingClientRect = () => ({ height }) as DOMRect;
  const reported: number[] = [];
  const observer = observeHeight(element, (value) => reported.push(value));
  observer.measure();
  observer.measure();
  height = 140;
  observer.measure();
  observer.stop();
  expect(reported).toEqual([101, 140]);
});
