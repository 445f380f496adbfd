import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('contextpack', {});
