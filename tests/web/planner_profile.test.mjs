// The web Planner's Cost section against `meshscope serve --cluster-profile FILE`: the profile's hardware is the
// default GPU, each constant it fitted is marked as from the cluster profile (with the file and what it was fitted
// on), the one it left at the preset says preset, and the step equals `meshscope advise --cluster-profile FILE`'s. On
// another GPU the profile is not used, and the page says why. The profile is written here by hand.
// PROFILE_SCREENSHOT=FILE also saves a screenshot of the page (docs/images/web-planner-cluster-profile.png).
import {test, before, after} from 'node:test';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import {eventually, launchBrowser, meshscope, startServe, tempDir} from './harness.mjs';

let dir;
let serve;
let browser;
let page;
let profile;

const constants = {
  calibration: {value: 0.41, source: 'fitted', basis: 'step time of dp 8, cp 1, ep 8 from train.log'},
  intra_node_gbps: {value: 300, source: 'fitted', basis: '3 intra-node collective records from nccl.log'},
  inter_node_gbps: {value: 50, source: 'preset', basis: 'ndr preset'},
};

before(async () => {
  dir = tempDir();
  profile = dir.file('cluster.json');
  fs.writeFileSync(profile, JSON.stringify({format: 'meshscope.cluster-profile/1', hardware: 'h200', network: 'ndr',
    gpus_per_node: 8, constants, evidence: {layouts: [], communicators: []}}));
  serve = await startServe({db: dir.file('h.db'), args: ['--cluster-profile', profile]});
  browser = await launchBrowser();
  page = browser.page;
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
const text = (selector) => page.locator(selector).first().textContent();
const waitText = (selector, expected) => eventually(async () => (await page.locator(selector).first().textContent()
  .catch(() => null)) === expected, {describe: async () => `${selector}: ${await page.locator(selector).first()
  .textContent().catch(() => '(none)')}, wanted ${expected}`});
const constantRows = () => page.locator('.planner-cost-constants li').evaluateAll((lis) =>
  lis.map((li) => ({name: li.dataset.constant, source: li.dataset.source, text: li.textContent})));

async function openCost() {
  await page.goto('about:blank');
  await page.goto(`${serve.url}/#/plan?world=64&ep=8`);
  await waitText('.planner-summary p', '(dp, cp, ep) = (64, 1, 8) · world 64 = dp 64 × cp 1');
  await page.selectOption('#planner-cost-model', 'qwen3-30b-a3b');
  await page.waitForSelector('.planner-cost-constants li');
}

test('the profile\'s constants are marked as from the cluster profile, the others as presets', async () => {
  await openCost();
  equal(await page.locator('#planner-cost-hardware').inputValue(), 'h200', 'the profile\'s GPU is the default');
  await waitText('.planner-cost-profile', `cluster profile ${profile}`);
  equal(JSON.stringify(await constantRows()), JSON.stringify([
    {name: 'calibration', source: 'fitted',
      text: `compute calibration 0.41 · cluster profile ${profile}: ${constants.calibration.basis}`},
    {name: 'intra_node_gbps', source: 'fitted',
      text: `NVLink bandwidth 300 GB/s · cluster profile ${profile}: ${constants.intra_node_gbps.basis}`},
    {name: 'inter_node_gbps', source: 'preset', text: 'network bandwidth 50 GB/s · preset: ndr preset'},
  ]), 'constants');
  // The step is the one `meshscope advise` prices with the same profile.
  const cli = JSON.parse(execFileSync(meshscope, ['advise', '--model', 'qwen3-30b-a3b', '--world', '64',
    '--cluster-profile', profile, '--micro-batch', '1', '--recompute', 'selective', '--format', 'json', '--show',
    '1000'], {encoding: 'utf8'}));
  equal(cli.cluster.calibration, 0.41, 'the CLI used the profile');
  const mine = cli.ranked.find((l) => l.dp === 64 && l.cp === 1 && l.ep === 8);
  const ms = (mine.step.seconds * 1e3).toFixed(2);
  const step = await text('.planner-cost-step');
  if (!step.startsWith(`step ${mine.step.seconds >= 1 ? `${mine.step.seconds.toFixed(2)} s` : `${ms} ms`} = `))
    throw new Error(`step ${step} is not advise's ${mine.step.seconds}`);
});

test('on another GPU the profile is not used, and the page says why', async () => {
  await openCost();
  await page.selectOption('#planner-cost-hardware', 'h100');
  await waitText('.planner-cost-profile',
    `cluster profile ${profile} not used: the cluster profile was fitted on h200; the cluster is h100`);
  const rows = await constantRows();
  equal(rows.map((r) => r.source).join(' '), 'preset preset preset', 'every constant a preset');
  equal(rows[0].text, 'compute calibration 0.6 · preset: h100 preset', 'h100\'s calibration');
  equal(rows[1].text, 'NVLink bandwidth 450 GB/s · preset: h100 preset', 'h100\'s NVLink');
});

test('a screenshot of the Cost section (PROFILE_SCREENSHOT)', {skip: !process.env.PROFILE_SCREENSHOT}, async () => {
  await page.setViewportSize({width: 1440, height: 900});
  await openCost();
  await page.locator('.planner-cost').screenshot({path: process.env.PROFILE_SCREENSHOT});
});
