import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';

/** WCAG 2.0 A and AA and WCAG 2.1 AA: what the issue asks of the console (keyboard, labels, contrast). */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa'];

let axeSource: string | null = null;

export interface AxeFinding {
  readonly rule: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * Runs axe-core in the page as it is now and answers its violations, each with the elements it found.
 * The source goes in through `evaluate`, not a script tag: the console's Content-Security-Policy
 * (its own scripts only) would refuse an inline one, and the audit must not loosen it.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate<boolean>("typeof window.axe === 'object'"))) await page.evaluate(axeSource);
  return page.evaluate<AxeFinding[]>(
    `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(TAGS)} }, resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ rule: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`,
  );
}

/** Fails naming each rule and the elements that break it; `where` says which page, so the failure reads on its own. */
export async function expectNoAxeViolations(page: Page, where: string): Promise<void> {
  expect({ where, violations: await axeViolations(page) }).toEqual({ where, violations: [] });
}
